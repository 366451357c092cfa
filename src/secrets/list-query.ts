// The query of the secret listings, as the public API defines it: startAt/endAt (RFC 3339, inclusive), limit (1-1000,
// default 20) and cursor. The route schema validates types first; this adds what JSON Schema with
// type coercion cannot say.
import { invalid } from '../domain/errors.js';
import { ceilMs, compareInstants, floorMs, parseRfc3339, type Instant } from './rfc3339.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;

export const listQuerySchema = {
  type: 'object',
  properties: {
    startAt: { type: 'string', format: 'date-time', description: 'Only secrets created on or after this timestamp (inclusive), RFC 3339' },
    endAt: { type: 'string', format: 'date-time', description: 'Only secrets created on or before this timestamp (inclusive), RFC 3339' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Maximum number of results' },
    cursor: { type: 'string', minLength: 1, description: 'The nextCursor of the previous response; keep the same filters across pages' },
  },
} as const;

/** The query after schema validation (limit coerced to a number, default applied). */
export interface ListQuery {
  startAt?: string;
  endAt?: string;
  limit: number;
  cursor?: string;
}

export interface ListRequest {
  limit: number;
  cursor?: string;
  /** Inclusive creation-time bounds in whole milliseconds, or null when not given. */
  startAt: number | null;
  endAt: number | null;
}

function instant(name: string, text: string): Instant {
  const parsed = parseRfc3339(text);
  if (!parsed) {
    throw invalid(
      `Invalid request: ${name} "${text.slice(0, 64)}" is not an RFC 3339 date-time; use e.g. 2025-01-31T12:00:00Z or 2025-01-31T14:00:00.000+02:00 (percent-encode "+" as %2B in a URL)`,
    );
  }
  return parsed;
}

/**
 * `rawLimit` is the limit as the client sent it: the schema coerces strings such as "0x10",
 * "1e2" or " 5" to integers, but only decimal digits are an integer parameter.
 */
export function parseListQuery(query: ListQuery, rawLimit: unknown): ListRequest {
  if (typeof rawLimit === 'string' && !/^[0-9]+$/.test(rawLimit)) {
    throw invalid(`Invalid request: limit "${rawLimit.slice(0, 32)}" must be an integer from 1 to ${MAX_LIMIT}`);
  }
  const start = query.startAt === undefined ? undefined : instant('startAt', query.startAt);
  const end = query.endAt === undefined ? undefined : instant('endAt', query.endAt);
  if (start && end && compareInstants(start, end) > 0) {
    throw invalid(`Invalid request: startAt (${query.startAt}) is later than endAt (${query.endAt})`);
  }
  return {
    limit: query.limit,
    cursor: query.cursor,
    startAt: start ? ceilMs(start) : null,
    endAt: end ? floorMs(end) : null,
  };
}
