// The body of POST /v1/fetch, checked field by field so that every 400 names the field to fix.
import { FetchFailure } from './fetch-failure.js';
import { FETCH_FORMATS, type FetchFormat, type FetchSettings } from './settings.js';
import { HINT_KEYWORD, parseHint } from './extract/extraction-hint.js';
import { selectorProblem } from './extract/selector-check.js';
import { compileCallerSchema } from './caller-schema.js';
import { UnsupportedPatternError } from '../schemas/linear-regexp.js';
import { SchemaTooComplexError } from '../schemas/schema-size.js';

export interface FetchRequest {
  url: URL;
  format: FetchFormat;
  /** The caller's schema (format json); it compiles, and the conversion worker validates the content against it. */
  schema?: Record<string, unknown>;
  allowRedirects: boolean;
  allowInsecureSsl: boolean;
  proxies: boolean;
}

const FIELDS = ['url', 'format', 'schema', 'allowRedirects', 'allowInsecureSsl', 'proxies'] as const;

export function parseFetchRequest(body: unknown, settings: FetchSettings): FetchRequest {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new FetchFailure(400, 'Request body must be a JSON object with at least "url"');
  }
  const b = body as Record<string, unknown>;
  // A misspelt field ("fromat", "allowRedirect") would otherwise fetch with its default, silently.
  const unknown = Object.keys(b).find((name) => !(FIELDS as readonly string[]).includes(name));
  if (unknown !== undefined) throw new FetchFailure(400, `body has unknown property "${unknown.slice(0, 100)}"; the fields are ${FIELDS.join(', ')}`);
  if (b.url === undefined || b.url === null || b.url === '') throw new FetchFailure(400, 'url is required');
  if (typeof b.url !== 'string') throw new FetchFailure(400, 'url must be a string');
  let url: URL;
  try {
    url = new URL(b.url.trim());
  } catch {
    throw new FetchFailure(400, `url must be an absolute http or https URL, got "${b.url.slice(0, 200)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchFailure(400, `url must use http or https, got ${url.protocol.replace(/:$/, '')}`);
  }
  if (url.username || url.password) throw new FetchFailure(400, 'url must not contain credentials (user:password@)');
  const format = b.format ?? 'raw';
  if (typeof format !== 'string' || !(FETCH_FORMATS as readonly string[]).includes(format)) {
    throw new FetchFailure(400, `format must be one of ${FETCH_FORMATS.join(', ')}; got ${JSON.stringify(format)}`);
  }
  const flag = (name: string): boolean => {
    const value = b[name];
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean') throw new FetchFailure(400, `${name} must be a boolean, got ${JSON.stringify(value)}`);
    return value;
  };
  const request: FetchRequest = {
    url,
    format: format as FetchFormat,
    allowRedirects: flag('allowRedirects'),
    allowInsecureSsl: flag('allowInsecureSsl'),
    proxies: flag('proxies'),
  };
  if (request.proxies && !settings.proxyUrl) {
    throw new FetchFailure(400, 'proxies is true but this server has no proxy configured (BROWSERFN_FETCH_PROXY); send proxies: false');
  }
  if (request.format === 'json') {
    if (b.schema === undefined || b.schema === null) throw new FetchFailure(400, 'schema is required when format is json');
    if (typeof b.schema !== 'object' || Array.isArray(b.schema)) throw new FetchFailure(400, 'schema must be a JSON Schema object');
    request.schema = b.schema as Record<string, unknown>;
    checkCallerSchema(request.schema);
  }
  return request;
}

function checkCallerSchema(schema: Record<string, unknown>): void {
  try {
    compileCallerSchema(schema);
  } catch (err) {
    if (err instanceof UnsupportedPatternError || err instanceof SchemaTooComplexError) throw new FetchFailure(400, `schema cannot be used: ${err.message}`);
    throw new FetchFailure(400, `schema is not a valid JSON Schema: ${(err as Error).message}`);
  }
  checkHints(schema, 'schema');
}

/** Every x-extract hint of the schema parses and its selector is valid CSS that the workers can afford. */
function checkHints(schema: unknown, path: string): void {
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Record<string, unknown>;
  let hint;
  try {
    hint = parseHint(s[HINT_KEYWORD], path);
  } catch (err) {
    throw new FetchFailure(400, (err as Error).message);
  }
  if (hint?.selector) {
    const problem = selectorProblem(hint.selector);
    if (problem) throw new FetchFailure(400, `${path}.${HINT_KEYWORD}.selector ${problem}`);
  }
  if (s.properties && typeof s.properties === 'object') {
    for (const [name, sub] of Object.entries(s.properties as Record<string, unknown>)) checkHints(sub, `${path}.properties.${name}`);
  }
  if (s.items) checkHints(s.items, `${path}.items`);
}
