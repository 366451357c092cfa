import { STATUS_CODES } from 'node:http';
import { StorageFullError } from '../cluster/port.js';
import { DomainError, type DomainErrorKind } from '../domain/errors.js';

/** An error whose message is safe to show the caller; anything else becomes a generic 500. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra fields merged into the error body (e.g. the fetch request `id`). */
    readonly extra: Record<string, unknown> = {},
    /** Response headers that go with the error (e.g. Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The one place a use case's error kind becomes an HTTP status. */
const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  invalid: 400,
  'not-found': 404,
  conflict: 409,
  busy: 429,
};

/** The HTTP form of an error whose message may be shown; undefined for anything else (a 500). */
export function toHttpError(err: unknown): HttpError | undefined {
  if (err instanceof HttpError) return err;
  // The one store failure a caller can act on (retry later); its message names no path.
  if (err instanceof StorageFullError) return new HttpError(507, err.message);
  if (err instanceof DomainError) {
    const headers: Record<string, string> = err.retryAfterSeconds !== undefined ? { 'retry-after': String(err.retryAfterSeconds) } : {};
    return new HttpError(STATUS_OF_KIND[err.kind], err.message, {}, headers);
  }
  return undefined;
}

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  [extra: string]: unknown;
}

export function errorBody(status: number, message: string, extra: Record<string, unknown> = {}): ErrorBody {
  return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message, ...extra };
}
