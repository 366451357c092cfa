// One page of a secret listing, in a total, stable order: (creation time, ID) ascending. A page
// continues strictly after the cursor's (creation time, ID), so secrets added while a client pages
// never make it skip or repeat one; those created later appear on later pages.
import type { ClusterPort } from '../cluster/port.js';
import { decodeCursor, encodeCursor, type CursorPosition, type CursorScope } from './cursor.js';
import { projectKeys, type ProjectKeys } from './keypair.js';
import type { ListRequest } from './list-query.js';
import type { SecretMeta } from './objects.js';
import { listSecrets } from './store.js';

/** A secret as the API shows it: metadata only, never the value. */
export interface SecretView {
  id: string;
  secretKey: string;
}

export interface SecretsPage {
  data: SecretView[];
  limit: number;
  nextCursor: string | null;
}

export const secretView = (meta: SecretMeta): SecretView => ({ id: meta.id, secretKey: meta.secretKey });

const byCreationThenId = (a: SecretMeta, b: SecretMeta): number => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const isAfter = (m: SecretMeta, p: CursorPosition): boolean => m.createdAt > p.createdAt || (m.createdAt === p.createdAt && m.id > p.id);

export async function listSecretsPage(
  cluster: ClusterPort,
  project: string,
  listing: string,
  request: ListRequest,
  include: (meta: SecretMeta) => boolean = () => true,
): Promise<SecretsPage> {
  const scope: CursorScope = { listing, startAt: request.startAt, endAt: request.endAt };
  // The keys are read only when a cursor is involved, so listing an empty project writes nothing.
  let keys: ProjectKeys | undefined;
  const cursorKey = async (): Promise<Buffer> => (keys ??= await projectKeys(cluster, project)).cursorKey;
  const after = request.cursor === undefined ? undefined : decodeCursor(await cursorKey(), project, scope, request.cursor);

  const matching = (await listSecrets(cluster, project))
    .map((s) => s.meta)
    .filter((m) => include(m) && (request.startAt === null || m.createdAt >= request.startAt) && (request.endAt === null || m.createdAt <= request.endAt))
    .filter((m) => !after || isAfter(m, after))
    .sort(byCreationThenId);
  const data = matching.slice(0, request.limit);
  const last = data[data.length - 1];
  const nextCursor = matching.length > request.limit && last ? encodeCursor(await cursorKey(), project, scope, last) : null;
  return { data: data.map(secretView), limit: request.limit, nextCursor };
}
