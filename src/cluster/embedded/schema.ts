// Tables of the embedded store. See docs/store.md for what each column means.
import type { Database } from 'node-sqlite3-wasm';

export const SCHEMA_VERSION = 1;

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

export function readMeta(db: Database, key: string): string | undefined {
  const row = db.get('SELECT value FROM meta WHERE key = ?', [key]);
  return row ? String(row.value) : undefined;
}

export function writeMeta(db: Database, key: string, value: string): void {
  db.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
}

/** Creates the tables on first open; refuses files written by a newer schema. */
export function migrate(db: Database): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(DDL);
    const version = readMeta(db, 'schemaVersion');
    if (version === undefined) {
      writeMeta(db, 'schemaVersion', String(SCHEMA_VERSION));
      // Starts at 1: a list never reports "0", which a watch reads as "any version".
      writeMeta(db, 'resourceVersion', '1');
      writeMeta(db, 'compactedThrough', '0');
    } else if (Number(version) !== SCHEMA_VERSION) {
      throw new Error(`store schema version ${version} is not supported by this browserfn (it reads version ${SCHEMA_VERSION})`);
    }
    db.exec('COMMIT');
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
}
