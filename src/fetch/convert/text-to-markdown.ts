// Markdown for text bodies that are not HTML: plain text and markdown as they are, JSON pretty-printed
// in a fenced block, CSV as a table, code and XML in a fenced block with its language.

const LANGUAGES: Record<string, string> = {
  'application/json': 'json',
  'application/ld+json': 'json',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/rss+xml': 'xml',
  'application/atom+xml': 'xml',
  'application/javascript': 'javascript',
  'application/x-javascript': 'javascript',
  'application/ecmascript': 'javascript',
  'text/javascript': 'javascript',
  'text/css': 'css',
  'application/yaml': 'yaml',
  'application/x-yaml': 'yaml',
  'text/yaml': 'yaml',
  'application/toml': 'toml',
  'application/sql': 'sql',
  'application/graphql': 'graphql',
  'application/x-sh': 'sh',
  'text/x-python': 'python',
};

const MAX_TABLE_ROWS = 5000;

export function textToMarkdown(text: string, mime: string): string {
  if (mime === 'text/plain' || mime === 'text/markdown' || mime === 'text/x-markdown') return text;
  if (mime === 'text/csv' || mime === 'application/csv' || mime === 'text/tab-separated-values') {
    const table = delimitedToTable(text, mime === 'text/tab-separated-values' ? '\t' : ',');
    if (table) return table;
  }
  if (mime === 'application/json' || mime.endsWith('+json')) return fenced(prettyJson(text), 'json');
  const language = LANGUAGES[mime] ?? (mime.endsWith('+xml') ? 'xml' : '');
  return fenced(text, language);
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function fenced(text: string, language: string): string {
  const longest = Math.max(2, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${language}\n${text.replace(/\n+$/, '')}\n${marks}`;
}

/** A GFM table when every row has the header's number of fields; undefined otherwise. */
function delimitedToTable(text: string, separator: string): string | undefined {
  const rows = parseDelimited(text, separator);
  if (rows.length < 1 || rows.length > MAX_TABLE_ROWS) return undefined;
  const width = rows[0].length;
  if (width < 2 || rows.some((r) => r.length !== width)) return undefined;
  const cell = (value: string): string => value.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').trim();
  const line = (r: string[]): string => `| ${r.map(cell).join(' | ')} |`;
  return [line(rows[0]), `| ${rows[0].map(() => '---').join(' | ')} |`, ...rows.slice(1).map(line)].join('\n');
}

/** RFC 4180 fields: quotes, doubled quotes, separators and newlines inside quotes. */
function parseDelimited(text: string, separator: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === separator) {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}
