// The artifact store port: records that outlive their cluster objects (archived invocations and
// builds) live here, as whole objects under keys. Two backends implement it with the same
// semantics: `filesystem` (under the data dir, embedded) and `s3` (any S3-compatible server).

export interface ArtifactEntry {
  key: string;
  size: number;
  /** When the object was last written (epoch ms). */
  lastModifiedMs: number;
}

export interface ArtifactStore {
  /** A short name for logs: 'filesystem' or 's3'. */
  readonly backend: string;
  /** Writes the whole object at once: a reader sees the old bytes or the new ones, never a part. */
  put(key: string, body: Buffer): Promise<void>;
  /** The object's bytes, or undefined when there is none under the key. */
  get(key: string): Promise<Buffer | undefined>;
  /** Removes the object; removing a missing one is no error. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix` (a folder-like prefix ending in '/'). */
  list(prefix: string): Promise<ArtifactEntry[]>;
  close(): Promise<void>;
}

const SEGMENT = /^[a-z0-9][a-z0-9._-]{0,199}$/;

/**
 * Keys are '/'-separated segments of lower-case letters, digits, '.', '_' and '-', each starting
 * with a letter or digit: no '..', no absolute path, nothing a backend could read as a path outside
 * its root. Keys are made by browserfn (project names and UUIDs), so a bad one is a bug.
 */
export function assertArtifactKey(key: string, { prefix = false } = {}): void {
  const segments = key.split('/');
  if (prefix && segments.at(-1) === '') segments.pop();
  if (segments.length === 0 || !segments.every((s) => SEGMENT.test(s))) {
    throw new Error(`artifact ${prefix ? 'prefix' : 'key'} "${key}" is not a '/'-separated list of [a-z0-9][a-z0-9._-]* segments`);
  }
}
