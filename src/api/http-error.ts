import { STATUS_CODES } from 'node:http';
import { DomainError, type DomainErrorKind } from '../domain/errors.js';

/** An error whose message is safe to show the caller; anything else becomes a generic 500. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra fields merged into the error body (e.g. the fetch request `id`). */
    readonly extra: Record<string, unknown> = {},
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
};

/** The HTTP form of an error whose message may be shown; undefined for anything else (a 500). */
export function toHttpError(err: unknown): HttpError | undefined {
  if (err instanceof HttpError) return err;
  if (err instanceof DomainError) return new HttpError(STATUS_OF_KIND[err.kind], err.message);
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
