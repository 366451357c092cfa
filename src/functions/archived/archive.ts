// The archive: where finished invocations and builds go once they leave the cluster store (see
// docs/retention.md). Records are whole JSON objects in the artifact store, one per invocation or
// build, read back by the same routes that read the cluster; each answers until its retention ends.
import type { ArtifactStore } from '../../artifacts/port.js';

export interface Archive {
  store: ArtifactStore;
  /** How long after its end a record keeps answering (BROWSERFN_RETENTION_DAYS). */
  retentionMs: number;
  /** Epoch ms now; tests pass a fake clock. */
  now: () => number;
}

/** Whether a record that ended at `endedAt` still answers: the cut-off is exact, whenever the sweep runs. */
export function withinRetention(archive: Archive, endedAt: string | undefined): boolean {
  const ended = endedAt ? Date.parse(endedAt) : NaN;
  return Number.isFinite(ended) && archive.now() < ended + archive.retentionMs;
}

/** Writes every object, then reads each back and compares: only a verified archive lets its cluster objects go. */
export async function putVerified(store: ArtifactStore, objects: { key: string; body: Buffer }[]): Promise<void> {
  for (const { key, body } of objects) await store.put(key, body);
  for (const { key, body } of objects) {
    const stored = await store.get(key);
    if (!stored || !stored.equals(body)) throw new Error(`the artifact store did not keep ${key} as written (${stored ? `${stored.length} bytes differ` : 'missing'})`);
  }
}

export function parseRecord<T>(bytes: Buffer | undefined, format: string, key: string): T | undefined {
  if (!bytes) return undefined;
  const record = JSON.parse(bytes.toString('utf8')) as { format?: string };
  if (record.format !== format) throw new Error(`${key} is not a ${format} record (format ${String(record.format)})`);
  return record as T;
}
