// Turns a fetched text body into the requested format. Runs inside the conversion workers.
import { htmlToMarkdown } from './html-to-markdown.js';
import { textToMarkdown } from './text-to-markdown.js';
import { parseHtml } from './dom.js';
import { parseRenderedHtml } from './streamed-segments.js';
import { extractBySchema, extractFromJson } from '../extract/schema-extractor.js';
import { isHtmlMime } from '../body-decoding.js';
import type { ValueSchema } from '../extract/coerce-value.js';
import { compileCallerSchema } from '../caller-schema.js';
import type { ErrorObject } from 'ajv';

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
  content: unknown;
  /** Format json: where the content fails the caller's schema (absent when it satisfies it). */
  validationErrors?: ErrorObject[];
}

export function convertDocument(request: ConversionRequest): ConversionResult {
  const html = isHtmlMime(request.contentType);
  if (request.format === 'markdown') {
    return { content: html ? htmlToMarkdown(request.body, request.url) : textToMarkdown(request.body, request.contentType) };
  }
  const content = extractContent(request, html);
  // Validated here, inside the worker's time limit: the schema's patterns meet page text of any size.
  const validate = compileCallerSchema(request.schema ?? {});
  return validate(content) ? { content } : { content, validationErrors: validate.errors ?? [] };
}

function extractContent(request: ConversionRequest, html: boolean): unknown {
  const schema = (request.schema ?? {}) as ValueSchema;
  if (html) return extractBySchema(request.body, parseRenderedHtml, request.url, schema);
  if (request.contentType === 'application/json' || request.contentType.endsWith('+json')) {
    let value: unknown;
    try {
      value = JSON.parse(request.body);
    } catch {
      value = request.body;
    }
    return extractFromJson(value, schema, request.url);
  }
  // Other text: each line a paragraph, for "Label: value" lines and the schema's hints (regex).
  const lines = request.body.split(/\r?\n/).map((line) => `<p>${escapeHtml(line)}</p>`);
  return extractBySchema(`<html><body>${lines.join('')}</body></html>`, parseHtml, request.url, schema);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
