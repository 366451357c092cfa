// List cursors: opaque to clients, tamper-evident (HMAC-SHA256 with the project's cursor key), and
// bound to the listing and the filters they were issued for, so a cursor only continues the exact
// listing it came from.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalid } from '../domain/errors.js';

/** The last item of the previous page: the next page starts strictly after it. */
export interface CursorPosition {
  createdAt: number;
  id: string;
}

/** What a cursor is bound to. Bounds are whole milliseconds (inclusive), or null when absent. */
export interface CursorScope {
  /** Which listing, e.g. `functions/<uuid>/secrets` or `secrets`. */
  listing: string;
  startAt: number | null;
  endAt: number | null;
}

interface Payload {
  v: 1;
  l: string;
  s: number | null;
  e: number | null;
  t: number;
  i: string;
}

const MAX_CURSOR_LENGTH = 1024;
const CORRUPT = 'Invalid cursor: pass the nextCursor of the previous response unchanged, or omit cursor to start from the first page';

const mac = (key: Buffer, project: string, payload: string): Buffer =>
  createHmac('sha256', key).update(`browserfn.dev/cursor/v1\0${project}\0${payload}`).digest();

export function encodeCursor(key: Buffer, project: string, scope: CursorScope, after: CursorPosition): string {
  const body: Payload = { v: 1, l: scope.listing, s: scope.startAt, e: scope.endAt, t: after.createdAt, i: after.id };
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
  return `${payload}.${mac(key, project, payload).toString('base64url')}`;
}

/** The position a cursor continues from; `invalid` when it is forged, corrupt, or issued for other filters. */
export function decodeCursor(key: Buffer, project: string, scope: CursorScope, cursor: string): CursorPosition {
  const dot = cursor.indexOf('.');
  if (cursor.length > MAX_CURSOR_LENGTH || dot < 0) throw invalid(CORRUPT);
  const payload = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
  const expected = mac(key, project, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid(CORRUPT);
  let body: Payload;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Payload;
  } catch {
    throw invalid(CORRUPT);
  }
  if (body?.v !== 1 || typeof body.t !== 'number' || typeof body.i !== 'string') throw invalid(CORRUPT);
  if (body.l !== scope.listing) throw invalid('Invalid cursor: it belongs to another listing; omit cursor to start from the first page');
  if (body.s !== scope.startAt || body.e !== scope.endAt) {
    throw invalid('Invalid cursor: it was issued for different startAt/endAt filters; keep the same filters across pages, or omit cursor to start over');
  }
  return { createdAt: body.t, id: body.i };
}
