// The embedded store: Kubernetes API semantics over one SQLite file. Every write is one SQLite
// transaction that also appends its events (one per resourceVersion, so versions are dense) and
// runs owner-reference garbage collection; watchers hear about it only after the commit.
import sqlite from 'node-sqlite3-wasm';
import type { Database } from 'node-sqlite3-wasm';
import { statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject, ResourceType } from '../objects.js';
import type { DeleteOptions, ListOptions, ObjectList, WatchEvent, WatchOptions } from '../port.js';
import { AlreadyExistsError, ConflictError, GoneError, InvalidError, NotFoundError, StorageFullError } from '../port.js';
import { parseLabelSelector, type LabelSelector, type Requirement } from '../labels.js';
import { admitCreate, admitStatusUpdate, admitUpdate, describeObject, markDeleting, validateNamespace } from './admission.js';
import { parseFieldSelector } from './field-selector.js';
import { claimStoreFile } from './file-owner.js';
import type { StoreSync } from '../../config/settings.js';
import { PreparedStatements } from './prepared-statements.js';
import { indexLabels, migrate, readMeta, SEALED_RESOURCE, writeMeta } from './schema.js';
import { Sealer } from './sealing.js';
import { CheckpointSchedule } from './checkpoint-schedule.js';
import { WatchHub, type StoreEvent, type StoreEventType, type Watcher } from './watch-hub.js';

export interface EmbeddedStoreOptions {
  /** SQLite file path, or ':memory:' (tests). */
  file: string;
  /** 32 bytes; Secrets are sealed with it (AES-256-GCM). */
  encryptionKey: Buffer;
  /** How many of the newest events are kept for watches that resume from a resourceVersion. */
  eventRetention?: number;
  /** Upper bound on the stored size of those events (large ConfigMaps would otherwise pile up). */
  eventRetentionBytes?: number;
  /** When commits reach the disk (config/settings.ts); 'normal' unless told. */
  sync?: StoreSync;
}

export const DEFAULT_EVENT_RETENTION = 10_000;
export const DEFAULT_EVENT_RETENTION_BYTES = 128 * 1024 * 1024;
/** Below this much free space a failed write is put down to a full disk. */
const MIN_FREE_BYTES = 1024 * 1024;

/** The resource's storage name, as the API server keys it: plural plus group. */
export const resourceKey = (type: ResourceType): string => (type.group ? `${type.plural}.${type.group}` : type.plural);

const KEY_CHECK = 'browserfn embedded store key check';

interface Located {
  resource: string;
  object: KubeObject;
}

export class EmbeddedStore {
  private readonly hub = new WatchHub();
  private closed = false;
  /** Last committed resourceVersion, and the newest version whose events may have been dropped. */
  private version: number;
  private compactedThrough: number;
  /** Total stored size of the events kept. */
  private eventBytes: number;
  /** State of the write transaction in progress. */
  private tx?: { version: number; compactedThrough: number; eventBytes: number; events: StoreEvent[] };
  private readonly sql: PreparedStatements;
  private readonly checkpoints: CheckpointSchedule;

  private constructor(
    private readonly db: Database,
    private readonly sealer: Sealer,
    private readonly retention: { events: number; bytes: number },
    private readonly release: () => void,
    /** The database file's folder, whose free space explains a failed write ('' in memory). */
    private readonly folder: string,
  ) {
    this.sql = new PreparedStatements(db);
    this.checkpoints = new CheckpointSchedule(() => this.checkpoint());
    this.version = Number(readMeta(this.sql, 'resourceVersion'));
    this.compactedThrough = Number(readMeta(this.sql, 'compactedThrough'));
    this.eventBytes = Number(this.sql.get('SELECT COALESCE(SUM(size), 0) AS bytes FROM events')?.bytes ?? 0);
  }

  static open(options: EmbeddedStoreOptions): EmbeddedStore {
    const sealer = new Sealer(options.encryptionKey);
    const retention = { events: options.eventRetention ?? DEFAULT_EVENT_RETENTION, bytes: options.eventRetentionBytes ?? DEFAULT_EVENT_RETENTION_BYTES };
    for (const [name, value] of [['eventRetention', retention.events], ['eventRetentionBytes', retention.bytes]] as const) {
      if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer; got ${value}`);
    }
    const release = options.file === ':memory:' ? () => {} : claimStoreFile(options.file);
    let db: Database | undefined;
    try {
      db = new sqlite.Database(options.file);
      // This process owns the file (see file-owner.ts): hold SQLite's lock for the whole session.
      db.exec('PRAGMA locking_mode = EXCLUSIVE');
      // A write-ahead log syncs at most once per commit where the rollback journal syncs three
      // times (about 4 ms a write instead of 27 on this project's test machine). The exclusive lock
      // above lets it work without shared memory, which this SQLite build lacks.
      db.exec('PRAGMA journal_mode = WAL');
      // Synced at checkpoints, or at every commit (1-20 ms of the service's one thread each).
      db.exec(`PRAGMA synchronous = ${options.sync === 'full' ? 'FULL' : 'NORMAL'}`);
      // Checkpoints run on the store's own schedule (checkpoint-schedule.ts), not inside a commit.
      db.exec('PRAGMA wal_autocheckpoint = 0');
      migrate(db);
      checkEncryptionKey(db, sealer);
      return new EmbeddedStore(db, sealer, retention, release, options.file === ':memory:' ? '' : dirname(resolve(options.file)));
    } catch (err) {
      if (db?.isOpen) db.close();
      release();
      throw err;
    }
  }

  get currentVersion(): string {
    return String(this.version);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.hub.closeAll();
    this.checkpoints.stop();
    this.sql.close();
    this.db.close();
    this.release();
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    this.assertOpen();
    return this.read(resourceKey(type), validateNamespace(type, namespace), name);
  }

  list(type: ResourceType, namespace: string | undefined, options: ListOptions = {}): ObjectList<KubeObject> {
    this.assertOpen();
    const labels = parseLabelSelector(options.labelSelector);
    const fields = parseFieldSelector(options.fieldSelector);
    const items = this.rows(type, namespace, labels)
      .map((row) => this.decode(row.resource, row.namespace, row.name, row.body))
      .filter((obj) => labels.matches(obj.metadata.labels) && fields.matches(obj));
    return { items, resourceVersion: this.currentVersion };
  }

  create(type: ResourceType, input: KubeObject): KubeObject {
    return this.transact(() => {
      const obj = admitCreate(type, input, new Date());
      const resource = resourceKey(type);
      const namespace = obj.metadata.namespace ?? '';
      if (this.read(resource, namespace, obj.metadata.name)) {
        throw new AlreadyExistsError(`${describeObject(type, obj.metadata.namespace, obj.metadata.name)} already exists`);
      }
      const created = this.put(resource, obj, 'ADDED');
      if (obj.metadata.ownerReferences?.length) this.collectGarbage(obj.metadata.uid as string);
      return created;
    });
  }

  update(type: ResourceType, input: KubeObject, subresource: 'main' | 'status'): KubeObject {
    return this.transact(() => {
      const resource = resourceKey(type);
      const name = input?.metadata?.name;
      if (typeof name !== 'string' || name === '') throw new InvalidError(`${type.kind}: metadata.name is required`);
      const namespace = validateNamespace(type, input.metadata.namespace);
      const stored = this.read(resource, namespace, name);
      if (!stored) throw new NotFoundError(`${describeObject(type, namespace, name)} not found`);
      const sent = input.metadata.resourceVersion;
      // Like the API server: no resourceVersion means an unconditional update.
      if (sent !== undefined && sent !== '' && sent !== stored.metadata.resourceVersion) {
        throw new ConflictError(
          `Operation cannot be fulfilled on ${describeObject(type, namespace, name)}: the object has been modified (you sent resourceVersion ${sent}, the stored one is ${stored.metadata.resourceVersion}); get the latest version, apply your changes to it and try again`,
        );
      }
      const next = subresource === 'status' ? admitStatusUpdate(type, stored, input) : admitUpdate(type, stored, input);
      if (isDeepStrictEqual(next, stored)) return stored;
      if (stored.metadata.deletionTimestamp && !next.metadata.finalizers?.length) {
        // The last finalizer is gone: the object goes away now. As with etcd, the DELETED event
        // (and this result) carry the state stored before this request.
        return this.deleteCascading({ resource, object: stored });
      }
      const updated = this.put(resource, next, 'MODIFIED', stored);
      if (!isDeepStrictEqual(next.metadata.ownerReferences, stored.metadata.ownerReferences)) this.collectGarbage(next.metadata.uid as string);
      return updated;
    });
  }

  delete(type: ResourceType, namespace: string | undefined, name: string, options: DeleteOptions = {}): void {
    this.transact(() => {
      const resource = resourceKey(type);
      const ns = validateNamespace(type, namespace);
      const stored = this.read(resource, ns, name);
      if (!stored) throw new NotFoundError(`${describeObject(type, namespace, name)} not found`);
      if (options.uid !== undefined && options.uid !== stored.metadata.uid) {
        throw new ConflictError(`Precondition failed deleting ${describeObject(type, namespace, name)}: UID in precondition: ${options.uid}, UID in object meta: ${stored.metadata.uid}`);
      }
      if (options.resourceVersion !== undefined && options.resourceVersion !== stored.metadata.resourceVersion) {
        throw new ConflictError(
          `Precondition failed deleting ${describeObject(type, namespace, name)}: ResourceVersion in precondition: ${options.resourceVersion}, ResourceVersion in object meta: ${stored.metadata.resourceVersion}`,
        );
      }
      if (stored.metadata.deletionTimestamp) return;
      if (stored.metadata.finalizers?.length) this.put(resource, markDeleting(stored, new Date()), 'MODIFIED', stored);
      else this.deleteCascading({ resource, object: stored });
    });
  }

  watch(
    type: ResourceType,
    namespace: string | undefined,
    options: WatchOptions,
    onEvent: (event: WatchEvent<KubeObject>) => void,
    onError?: (err: Error) => void,
  ): Watcher {
    this.assertOpen();
    const resource = resourceKey(type);
    // As with the API server, an empty namespace means all of them.
    const scope = type.namespaced && namespace ? namespace : undefined;
    const from = options.resourceVersion;
    if (from !== undefined && from !== '' && !/^\d+$/.test(from)) throw new InvalidError(`resourceVersion "${from}" is not valid: expected a non-negative integer`);
    const resumes = from !== undefined && from !== '' && from !== '0';
    const filter = {
      resource,
      namespace: scope,
      labels: parseLabelSelector(options.labelSelector),
      fields: parseFieldSelector(options.fieldSelector),
      after: resumes ? Number(from) : undefined,
    };
    // Registration and backlog happen in one synchronous step, so no write can fall between them.
    const watcher = this.hub.add(filter, onEvent, onError);
    if (!resumes) {
      if (from !== '0') return watcher;
      // "Any version": the current state as synthetic ADDED events, then live ones (as the API server does).
      for (const row of this.rows(type, scope)) {
        const json = this.decodeJson(row.resource, row.namespace, row.name, row.body);
        const object = JSON.parse(json) as KubeObject;
        watcher.offer({ resourceVersion: Number(object.metadata.resourceVersion), type: 'ADDED', resource, namespace: row.namespace, object, json });
      }
      return watcher;
    }
    const since = Number(from);
    if (since < this.compactedThrough) {
      watcher.fail(new GoneError(`too old resource version: ${since} (the store keeps events after ${this.compactedThrough}); list again and watch from the list's resourceVersion`));
      return watcher;
    }
    const clauses = ['resource_version > ?', 'resource = ?'];
    const params: (string | number)[] = [since, resource];
    if (scope !== undefined) {
      clauses.push('namespace = ?');
      params.push(scope);
    }
    for (const row of this.sql.all(`SELECT * FROM events WHERE ${clauses.join(' AND ')} ORDER BY resource_version`, params)) {
      watcher.offer(this.eventFromRow(row));
    }
    return watcher;
  }

  // ---- reading ----

  private assertOpen(): void {
    if (this.closed) throw new Error('the embedded cluster store is closed');
  }

  /**
   * The rows of a kind in namespace/name order (one namespace's, or all). Given a selector that asks
   * for label values (`=`, `==`, `in`), only the rows the label index has for all of those, found
   * from the one with the fewest: the caller still matches the whole selector. Sealed rows are not
   * in that index and are all read.
   */
  private rows(type: ResourceType, namespace: string | undefined, labels?: LabelSelector): { resource: string; namespace: string; name: string; body: string }[] {
    const resource = resourceKey(type);
    const valued = resource === SEALED_RESOURCE ? [] : (labels?.requirements ?? []).filter((req) => req.operator === 'Equals' || req.operator === 'In');
    const placeholders = (values: readonly string[]) => values.map(() => '?').join(', ');
    const indexedCount = (req: Requirement) =>
      Number(this.sql.get(`SELECT COUNT(*) AS n FROM labels WHERE resource = ? AND key = ? AND value IN (${placeholders(req.values)})`, [resource, req.key, ...req.values])?.n);
    const [driver, ...others] = valued.length > 1 ? valued.map((req) => ({ req, n: indexedCount(req) })).sort((a, b) => a.n - b.n).map(({ req }) => req) : valued;
    const clauses = ['o.resource = ?'];
    const params: string[] = [resource];
    let from = 'objects o';
    if (driver) {
      from = 'labels d JOIN objects o ON o.uid = d.uid';
      clauses.push('d.resource = ?', 'd.key = ?', `d.value IN (${placeholders(driver.values)})`);
      params.push(resource, driver.key, ...driver.values);
    }
    if (type.namespaced && namespace) {
      // On the index's side when it drives, so its (resource, key, value, namespace) range is what is read.
      clauses.push(driver ? 'd.namespace = ?' : 'o.namespace = ?');
      params.push(namespace);
    }
    for (const { key, values } of others) {
      clauses.push(`EXISTS (SELECT 1 FROM labels x WHERE x.uid = o.uid AND x.key = ? AND x.value IN (${placeholders(values)}))`);
      params.push(key, ...values);
    }
    const sql = `SELECT o.resource, o.namespace, o.name, o.body FROM ${from} WHERE ${clauses.join(' AND ')} ORDER BY o.namespace, o.name`;
    return this.sql.all(sql, params) as { resource: string; namespace: string; name: string; body: string }[];
  }

  private read(resource: string, namespace: string, name: string): KubeObject | undefined {
    const row = this.sql.get('SELECT body FROM objects WHERE resource = ? AND namespace = ? AND name = ?', [resource, namespace, name]);
    return row ? this.decode(resource, namespace, name, String(row.body)) : undefined;
  }

  private readByUid(uid: string): Located | undefined {
    const row = this.sql.get('SELECT resource, namespace, name, body FROM objects WHERE uid = ?', [uid]);
    if (!row) return undefined;
    const resource = String(row.resource);
    return { resource, object: this.decode(resource, String(row.namespace), String(row.name), String(row.body)) };
  }

  private encode(resource: string, namespace: string, name: string, json: string): string {
    return resource === SEALED_RESOURCE ? this.sealer.seal(json, `${resource}/${namespace}/${name}`) : json;
  }

  private decodeJson(resource: string, namespace: string, name: string, body: string): string {
    return resource === SEALED_RESOURCE ? this.sealer.open(body, `${resource}/${namespace}/${name}`) : body;
  }

  private decode(resource: string, namespace: string, name: string, body: string): KubeObject {
    return JSON.parse(this.decodeJson(resource, namespace, name, body)) as KubeObject;
  }

  private eventFromRow(row: Record<string, unknown>): StoreEvent {
    const [resource, namespace, name] = [String(row.resource), String(row.namespace), String(row.name)];
    const json = this.decodeJson(resource, namespace, name, String(row.body));
    const previousJson = row.previous_body === null ? undefined : this.decodeJson(resource, namespace, name, String(row.previous_body));
    return {
      resourceVersion: Number(row.resource_version),
      type: String(row.type) as StoreEventType,
      resource,
      namespace,
      object: JSON.parse(json) as KubeObject,
      json,
      previous: previousJson === undefined ? undefined : { object: JSON.parse(previousJson) as KubeObject, json: previousJson },
    };
  }

  // ---- writing (inside transact) ----

  /** SQLite in WebAssembly reports a full disk as "disk I/O error": the folder's free space tells which it was. */
  private diskIsFull(err: unknown): boolean {
    if (/database or disk is full/i.test((err as Error).message)) return true;
    if (!this.folder || !/disk I\/O error/i.test((err as Error).message)) return false;
    const { bavail, bsize } = statfsSync(this.folder);
    return bavail * bsize < MIN_FREE_BYTES;
  }

  private transact<R>(work: () => R): R {
    this.assertOpen();
    const tx = { version: this.version, compactedThrough: this.compactedThrough, eventBytes: this.eventBytes, events: [] as StoreEvent[] };
    this.tx = tx;
    this.sql.run('BEGIN IMMEDIATE');
    let result: R;
    try {
      result = work();
      if (tx.version !== this.version) {
        writeMeta(this.sql, 'resourceVersion', String(tx.version));
        this.compact(tx);
      }
      this.sql.run('COMMIT');
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      if (this.diskIsFull(err)) {
        throw new StorageFullError("No space left on the data dir's disk; nothing of this change was stored. Free space there, then retry");
      }
      throw err;
    } finally {
      this.tx = undefined;
    }
    this.version = tx.version;
    this.compactedThrough = tx.compactedThrough;
    this.eventBytes = tx.eventBytes;
    this.checkpoints.committed();
    this.hub.publish(tx.events);
    return result;
  }

  /** A failed checkpoint loses nothing: the log keeps every commit, and the next checkpoint copies it. */
  private checkpoint(): void {
    try {
      this.db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    } catch {
      // e.g. a full disk: the next write says so
    }
  }

  private activeTx(): NonNullable<EmbeddedStore['tx']> {
    if (!this.tx) throw new Error('internal: store write outside a transaction');
    return this.tx;
  }

  /**
   * Keeps the newest events within both budgets (count and bytes). Versions are dense, so the
   * count budget is a range; the byte budget drops the oldest events until the rest fit.
   */
  private compact(tx: NonNullable<EmbeddedStore['tx']>): void {
    let threshold = tx.version - this.retention.events;
    if (tx.eventBytes > this.retention.bytes) {
      const row = this.sql.get(
        `SELECT resource_version FROM (
           SELECT resource_version, SUM(size) OVER (ORDER BY resource_version DESC) AS newer_bytes FROM events
         ) WHERE newer_bytes > ? ORDER BY resource_version DESC LIMIT 1`,
        [this.retention.bytes],
      );
      if (row) threshold = Math.max(threshold, Number(row.resource_version));
    }
    if (threshold <= tx.compactedThrough) return;
    const dropped = this.sql.get('SELECT COALESCE(SUM(size), 0) AS bytes FROM events WHERE resource_version <= ?', [threshold]);
    this.sql.run('DELETE FROM events WHERE resource_version <= ?', [threshold]);
    writeMeta(this.sql, 'compactedThrough', String(threshold));
    tx.compactedThrough = threshold;
    tx.eventBytes -= Number(dropped?.bytes ?? 0);
  }

  /** Writes the object at the next resourceVersion, with its event; returns a caller-owned copy. */
  private put(resource: string, obj: KubeObject, type: 'ADDED' | 'MODIFIED', previous?: KubeObject): KubeObject {
    const tx = this.activeTx();
    tx.version += 1;
    obj.metadata.resourceVersion = String(tx.version);
    const json = JSON.stringify(obj);
    const namespace = obj.metadata.namespace ?? '';
    const uid = obj.metadata.uid as string;
    this.sql.run(
      `INSERT INTO objects (resource, namespace, name, uid, resource_version, body) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (resource, namespace, name) DO UPDATE SET uid = excluded.uid, resource_version = excluded.resource_version, body = excluded.body`,
      [resource, namespace, obj.metadata.name, uid, tx.version, this.encode(resource, namespace, obj.metadata.name, json)],
    );
    this.sql.run('DELETE FROM owner_references WHERE dependent_uid = ?', [uid]);
    for (const ref of obj.metadata.ownerReferences ?? []) {
      this.sql.run('INSERT OR IGNORE INTO owner_references (owner_uid, dependent_uid) VALUES (?, ?)', [ref.uid, uid]);
    }
    if (!previous || !isDeepStrictEqual(previous.metadata.labels ?? {}, obj.metadata.labels ?? {})) {
      this.sql.run('DELETE FROM labels WHERE uid = ?', [uid]);
      indexLabels(this.sql, uid, resource, namespace, obj.metadata.labels);
    }
    this.record(type, resource, obj, json, previous);
    return JSON.parse(json) as KubeObject;
  }

  private record(type: StoreEventType, resource: string, object: KubeObject, json: string, previous?: KubeObject): void {
    const tx = this.activeTx();
    const namespace = object.metadata.namespace ?? '';
    const name = object.metadata.name;
    // The earlier state matters to label-selector watchers only when the labels changed.
    const labelsChanged = previous !== undefined && !isDeepStrictEqual(previous.metadata.labels ?? {}, object.metadata.labels ?? {});
    const previousJson = labelsChanged ? JSON.stringify(previous) : undefined;
    const body = this.encode(resource, namespace, name, json);
    const previousBody = previousJson === undefined ? null : this.encode(resource, namespace, name, previousJson);
    const size = body.length + (previousBody?.length ?? 0);
    this.sql.run('INSERT INTO events (resource_version, type, resource, namespace, name, body, previous_body, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
      tx.version,
      type,
      resource,
      namespace,
      name,
      body,
      previousBody,
      size,
    ]);
    tx.eventBytes += size;
    tx.events.push({
      resourceVersion: tx.version,
      type,
      resource,
      namespace,
      object,
      json,
      previous: previousJson === undefined ? undefined : { object: previous as KubeObject, json: previousJson },
    });
  }

  /**
   * Removes an object, then garbage-collects its dependents the way the Kubernetes garbage collector
   * does in background propagation: a dependent whose owners are all gone is deleted (or marked, if
   * it has finalizers), one that still has an owner only loses the dangling references.
   * Returns the removed object as its DELETED event carries it.
   */
  private deleteCascading(first: Located): KubeObject {
    const tx = this.activeTx();
    const queue: Located[] = [first];
    let removed: KubeObject | undefined;
    while (queue.length) {
      const { resource, object } = queue.shift() as Located;
      const uid = object.metadata.uid as string;
      tx.version += 1;
      object.metadata.resourceVersion = String(tx.version);
      this.sql.run('DELETE FROM objects WHERE uid = ?', [uid]);
      this.sql.run('DELETE FROM labels WHERE uid = ?', [uid]);
      this.sql.run('DELETE FROM owner_references WHERE dependent_uid = ?', [uid]);
      const json = JSON.stringify(object);
      this.record('DELETED', resource, object, json);
      removed ??= JSON.parse(json) as KubeObject;
      const dependents = this.sql.all('SELECT dependent_uid FROM owner_references WHERE owner_uid = ?', [uid]);
      this.sql.run('DELETE FROM owner_references WHERE owner_uid = ?', [uid]);
      for (const row of dependents) {
        const doomed = this.collectableDependent(String(row.dependent_uid));
        if (doomed) queue.push(doomed);
      }
    }
    return removed as KubeObject;
  }

  /** Applies the garbage collector's rule to one object now (after a write that changed its owners). */
  private collectGarbage(uid: string): void {
    const doomed = this.collectableDependent(uid);
    if (doomed) this.deleteCascading(doomed);
  }

  /** Drops dangling owner references; returns the object when it has no owner left and must go. */
  private collectableDependent(uid: string): Located | undefined {
    const found = this.readByUid(uid);
    if (!found) return undefined;
    const { resource, object } = found;
    const refs = object.metadata.ownerReferences ?? [];
    const live = refs.filter((ref) => this.ownerExists(ref.uid, object.metadata.namespace ?? ''));
    if (live.length === refs.length) return undefined;
    if (live.length > 0) {
      const next = JSON.parse(JSON.stringify(object)) as KubeObject;
      next.metadata.ownerReferences = live;
      this.put(resource, next, 'MODIFIED', object);
      return undefined;
    }
    if (object.metadata.deletionTimestamp) return undefined;
    if (object.metadata.finalizers?.length) {
      this.put(resource, markDeleting(object, new Date()), 'MODIFIED', object);
      return undefined;
    }
    return found;
  }

  /** An owner counts when it exists and is cluster-scoped or in the dependent's namespace. */
  private ownerExists(ownerUid: string, dependentNamespace: string): boolean {
    const row = this.sql.get('SELECT namespace FROM objects WHERE uid = ?', [ownerUid]);
    return !!row && (row.namespace === '' || row.namespace === dependentNamespace);
  }
}

function checkEncryptionKey(db: Database, sealer: Sealer): void {
  const stored = readMeta(db, 'encryptionKeyCheck');
  if (stored === undefined) {
    writeMeta(db, 'encryptionKeyCheck', sealer.seal(KEY_CHECK, 'meta/encryptionKeyCheck'));
    return;
  }
  try {
    sealer.open(stored, 'meta/encryptionKeyCheck');
  } catch {
    throw new Error('the encryption key does not match the one this store file was created with; pass the original key');
  }
}
