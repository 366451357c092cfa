// What a fetched body is: its MIME type (declared or sniffed), whether it is text, and as text,
// its characters decoded from the declared or sniffed charset.

export interface DecodedBody {
  /** MIME type without parameters, lower case. */
  mimeType: string;
  /** The text as a UTF-8 string, or undefined for binary bodies. */
  text?: string;
  /** The charset the text was decoded from. */
  charset?: string;
}

const TEXT_APPLICATION_TYPES = new Set([
  'application/json', 'application/ld+json', 'application/xml', 'application/xhtml+xml', 'application/javascript',
  'application/ecmascript', 'application/x-javascript', 'application/rss+xml', 'application/atom+xml',
  'application/x-www-form-urlencoded', 'application/yaml', 'application/x-yaml', 'application/toml', 'application/sql',
  'application/graphql', 'application/csv', 'application/x-sh', 'application/xml-dtd', 'image/svg+xml',
  'application/manifest+json', 'application/problem+json', 'application/geo+json', 'application/x-ndjson',
]);

export function isTextMime(mime: string): boolean {
  return mime.startsWith('text/') || TEXT_APPLICATION_TYPES.has(mime) || mime.endsWith('+json') || mime.endsWith('+xml');
}

export function isHtmlMime(mime: string): boolean {
  return mime === 'text/html' || mime === 'application/xhtml+xml';
}

export function parseContentType(header: string | undefined): { mimeType?: string; charset?: string } {
  if (!header) return {};
  const [essence, ...params] = header.split(';');
  const mimeType = essence.trim().toLowerCase() || undefined;
  let charset: string | undefined;
  for (const param of params) {
    const match = /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(param);
    if (match) charset = match[1].toLowerCase();
  }
  return { mimeType: mimeType && /^[\w.+-]+\/[\w.+-]+$/.test(mimeType) ? mimeType : undefined, charset };
}

export function decodeBody(body: Buffer, contentTypeHeader: string | undefined): DecodedBody {
  const declared = parseContentType(contentTypeHeader);
  const mimeType = declared.mimeType ?? sniffMime(body);
  if (!isTextMime(mimeType)) return { mimeType };
  const charset = bomCharset(body) ?? usableCharset(declared.charset) ?? sniffCharset(body, mimeType);
  const bomLength = bomCharset(body) ? (charset === 'utf-8' ? 3 : 2) : 0;
  const text = decodeText(body.subarray(bomLength), charset);
  return { mimeType, text, charset };
}

/**
 * windows-1252's bytes 0x80-0x9F (“ ” ‘ ’ – — € …), as the WHATWG index has them: Node 20 and 22
 * decode windows-1252 as ISO-8859-1 (a fast path for latin1 labels), which makes them invisible C1
 * controls. Every other charset goes to TextDecoder.
 */
const WINDOWS_1252_C1 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ';

function decodeText(bytes: Buffer, charset: string): string {
  if (charset !== 'windows-1252') return new TextDecoder(charset).decode(bytes);
  return bytes.toString('latin1').replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80]);
}

function usableCharset(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}

function bomCharset(body: Buffer): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** No Content-Type: markup-looking text is HTML, other valid text is plain text, the rest is bytes. */
function sniffMime(body: Buffer): string {
  const head = body.subarray(0, 1024).toString('latin1').trimStart().toLowerCase();
  if (/^(?:<!doctype html|<html|<head|<body|<!--|<script|<title|<div|<p[\s>]|<h1|<table)/.test(head)) return 'text/html';
  if (head.startsWith('<?xml')) return 'application/xml';
  if (head.startsWith('%pdf-')) return 'application/pdf';
  if (bomCharset(body)) return 'text/plain';
  const sample = body.subarray(0, 4096);
  if (sample.includes(0)) return 'application/octet-stream';
  return isUtf8(sample, body.length > sample.length) ? 'text/plain' : 'application/octet-stream';
}

/** The charset of a body that declares none in its Content-Type. */
function sniffCharset(body: Buffer, mime: string): string {
  const head = body.subarray(0, 1024).toString('latin1');
  if (isHtmlMime(mime)) {
    const meta = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
    const fromMeta = usableCharset(meta?.[1]);
    // A page that says utf-16 in ASCII bytes is not utf-16 (the HTML standard reads it as utf-8).
    if (fromMeta) return fromMeta.startsWith('utf-16') ? 'utf-8' : fromMeta;
  }
  if (mime.includes('xml')) {
    const decl = /^<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)["']/.exec(head);
    const fromDecl = usableCharset(decl?.[1]);
    if (fromDecl) return fromDecl;
  }
  if (mime === 'application/json' || mime.endsWith('+json')) return 'utf-8';
  return isUtf8(body, false) ? 'utf-8' : 'windows-1252';
}

/** Valid UTF-8? A truncated sample may end inside a character. */
function isUtf8(bytes: Buffer, truncated: boolean): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: truncated });
    return true;
  } catch {
    return false;
  }
}
