import { STATUS_CODES } from 'node:http';

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

export const badRequest = (message: string): HttpError => new HttpError(400, message);
export const notFound = (message: string): HttpError => new HttpError(404, message);

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  [extra: string]: unknown;
}

export function errorBody(status: number, message: string, extra: Record<string, unknown> = {}): ErrorBody {
  return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message, ...extra };
}
