// Tables of the embedded store. See docs/store.md for what each column means.
import type { Database } from 'node-sqlite3-wasm';
import type { Sql } from './prepared-statements.js';

export const SCHEMA_VERSION = 2;

const DDL = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS objects (
  resource TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  uid TEXT NOT NULL UNIQUE,
  resource_version INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (resource, namespace, name)
);
CREATE TABLE IF NOT EXISTS owner_references (
  owner_uid TEXT NOT NULL,
  dependent_uid TEXT NOT NULL,
  PRIMARY KEY (owner_uid, dependent_uid)
);
CREATE INDEX IF NOT EXISTS owner_references_by_dependent ON owner_references (dependent_uid);
CREATE TABLE IF NOT EXISTS labels (
  uid TEXT NOT NULL,
  resource TEXT NOT NULL,
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (uid, key)
);
CREATE INDEX IF NOT EXISTS labels_by_value ON labels (resource, key, value, namespace);
CREATE TABLE IF NOT EXISTS events (
  resource_version INTEGER PRIMARY KEY,
  type TEXT NOT NULL,
  resource TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  body TEXT NOT NULL,
  previous_body TEXT,
  size INTEGER NOT NULL
);
`;

export function readMeta(db: Sql, key: string): string | undefined {
  const row = db.get('SELECT value FROM meta WHERE key = ?', [key]);
  return row ? String(row.value) : undefined;
}

export function writeMeta(db: Sql, key: string, value: string): void {
  db.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
}

/** The resource whose rows are sealed: its labels are not indexed, in clear, beside them. */
export const SEALED_RESOURCE = 'secrets';

/** Indexes an object's labels (none for a sealed resource); the object's earlier ones must be gone. */
export function indexLabels(db: Sql, uid: string, resource: string, namespace: string, labels: Record<string, string> | undefined): void {
  if (resource === SEALED_RESOURCE) return;
  for (const [key, value] of Object.entries(labels ?? {})) {
    db.run('INSERT INTO labels (uid, resource, namespace, key, value) VALUES (?, ?, ?, ?, ?)', [uid, resource, namespace, key, value]);
  }
}

/** Creates the tables on first open and brings an older file up to this schema; refuses files written by a newer one. */
export function migrate(db: Database): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(DDL);
    const version = readMeta(db, 'schemaVersion');
    if (version === undefined) {
      // Starts at 1: a list never reports "0", which a watch reads as "any version".
      writeMeta(db, 'resourceVersion', '1');
      writeMeta(db, 'compactedThrough', '0');
    } else if (Number(version) === 1) {
      // Version 2 added the label index: built from the stored objects.
      for (const row of db.all('SELECT uid, resource, namespace, body FROM objects WHERE resource != ?', [SEALED_RESOURCE])) {
        const { metadata } = JSON.parse(String(row.body)) as { metadata: { labels?: Record<string, string> } };
        indexLabels(db, String(row.uid), String(row.resource), String(row.namespace), metadata.labels);
      }
    } else if (Number(version) !== SCHEMA_VERSION) {
      throw new Error(`store schema version ${version} is not supported by this browserfn (it reads version ${SCHEMA_VERSION})`);
    }
    writeMeta(db, 'schemaVersion', String(SCHEMA_VERSION));
    db.exec('COMMIT');
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
}
