// Turns a fetched body into the requested format. Runs inside the conversion workers.
import { htmlToMarkdown } from './html-to-markdown.js';

export interface ConversionRequest {
  format: 'markdown' | 'json';
  /** The body decoded to a string. */
  body: string;
  /** The MIME type without parameters, lower case. */
  contentType: string;
  /** The final URL (after redirects): links are made absolute against it. */
  url: string;
  schema?: Record<string, unknown>;
}

export interface ConversionResult {
  content: string | Record<string, unknown>;
}

export function convertDocument(request: ConversionRequest): ConversionResult {
  if (request.format === 'markdown') return { content: htmlToMarkdown(request.body, request.url) };
  throw new Error('json: not yet');
}
