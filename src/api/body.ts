import type { Context } from 'koa';
import { HttpError } from './http-error.js';
import { nestingDepth } from '../schemas/nesting.js';
import { askForBody } from './expect-continue.js';

/** Reads a JSON request body with a size limit; a wrong type, bad JSON or too large a body is a 4xx. */
export async function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw new HttpError(413, `Request body is ${declared} bytes; the limit is ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  askForBody(ctx.res);
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, `Request body exceeds the limit of ${limit} bytes`);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  if (!ctx.is('application/json', '+json')) {
    throw new HttpError(415, `Content-Type must be application/json, got "${ctx.get('content-type') || 'none'}"`);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new HttpError(400, `Request body is not valid JSON: ${(err as Error).message}`);
  }
  const depth = nestingDepth(body, MAX_NESTING_DEPTH);
  if (depth > MAX_NESTING_DEPTH) throw new HttpError(400, `Request body nests objects and arrays more than ${MAX_NESTING_DEPTH} levels deep; flatten it`);
  return body;
}

/**
 * Far deeper than any real request; deeper values would overflow the stack of the recursive code
 * that later copies, merges, validates or stores them (ajv, deep merge, the store's schema checks).
 */
export const MAX_NESTING_DEPTH = 100;
