// Newest-first pages with cursors, for webhooks and their deliveries. The order is total and
// stable, (creation time, ID) descending, and a page continues strictly after the cursor's
// position, so items added while a client pages never make it skip or repeat one. Cursors are the
// project's tamper-evident ones (src/secrets/cursor.ts), bound to the listing they came from.
import type { ClusterPort } from '../cluster/port.js';
import { invalid } from '../domain/errors.js';
import { decodeCursor, encodeCursor, type CursorPosition, type CursorScope } from '../secrets/cursor.js';
import { projectKeys } from '../secrets/keypair.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export const pageQuerySchema = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Maximum number of results' },
    cursor: { type: 'string', minLength: 1, description: 'The nextCursor of the previous response; omit for the first page' },
  },
} as const;

export interface PageQuery {
  limit: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  limit: number;
  nextCursor: string | null;
}

const newestFirst = (a: CursorPosition, b: CursorPosition): number => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** `rawLimit` is the limit as sent: the schema coerces "0x10" or "1e1" to integers, but only digits are an integer parameter. */
export async function pageNewestFirst<T extends CursorPosition>(cluster: ClusterPort, project: string, listing: string, all: T[], query: PageQuery, rawLimit: unknown): Promise<Page<T>> {
  if (typeof rawLimit === 'string' && !/^[0-9]+$/.test(rawLimit)) throw invalid(`Invalid request: limit "${rawLimit.slice(0, 32)}" must be an integer from 1 to ${MAX_LIMIT}`);
  const scope: CursorScope = { listing, startAt: null, endAt: null };
  const key = async (): Promise<Buffer> => (await projectKeys(cluster, project)).cursorKey;
  const after = query.cursor === undefined ? undefined : decodeCursor(await key(), project, scope, query.cursor);
  const rest = all.filter((item) => !after || newestFirst(item, after) > 0).sort(newestFirst);
  const items = rest.slice(0, query.limit);
  const last = items.at(-1);
  const nextCursor = rest.length > query.limit && last ? encodeCursor(await key(), project, scope, { createdAt: last.createdAt, id: last.id }) : null;
  return { items, limit: query.limit, nextCursor };
}
