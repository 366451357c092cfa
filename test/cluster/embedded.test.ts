// The embedded store: the conformance suite on a real SQLite file, plus what only this backend
// promises (encryption at rest, event compaction, atomic writes, crash recovery, ordering).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs, { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import sqlite from 'node-sqlite3-wasm';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../../src/cluster/objects.js';
import { ClusterError, GoneError, InvalidError, type ClusterPort, type ResourceClient } from '../../src/cluster/port.js';
import { parseLabelSelector } from '../../src/cluster/labels.js';
import type { StoreSync } from '../../src/config/settings.js';
import { describeClusterConformance } from './conformance.js';
import { EventCollector } from './watch-collector.js';

interface TempStore {
  dir: string;
  file: string;
  key: Buffer;
}

const tempStores: TempStore[] = [];

function tempStore(): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'browserfn-store-'));
  const store = { dir, file: join(dir, 'cluster.db'), key: randomBytes(32) };
  tempStores.push(store);
  return store;
}

const openStore = (store: TempStore, retention: { eventRetention?: number; eventRetentionBytes?: number } = {}): Promise<ClusterPort> =>
  openEmbeddedCluster({ file: store.file, encryptionKey: store.key, ...retention });

const configMap = (name: string, labels?: Record<string, string>, namespace = 'team'): KubeObject =>
  newObject(Kinds.ConfigMap, { name, namespace, labels }, { data: { key: name } });

after(function () {
  for (const store of tempStores) rmSync(store.dir, { recursive: true, force: true });
});

describeClusterConformance('embedded (SQLite file)', async () => {
  const store = tempStore();
  let cluster = await openStore(store);
  return {
    cluster,
    reopen: async () => {
      await cluster.close();
      cluster = await openStore(store);
      return cluster;
    },
    cleanup: async () => {
      await cluster.close();
      rmSync(store.dir, { recursive: true, force: true });
    },
  };
});

describe('embedded cluster store', function () {
  let store: TempStore;
  let cluster: ClusterPort;

  beforeEach(async function () {
    store = tempStore();
    cluster = await openStore(store);
  });

  afterEach(async function () {
    await cluster.close();
  });

  it('keeps Secret data encrypted at rest: the SQLite file never holds the value in clear', async function () {
    const secretValue = `s3cret-${randomBytes(8).toString('hex')}`;
    const clearValue = `visible-${randomBytes(8).toString('hex')}`;
    const secrets = cluster.resource(Kinds.Secret);
    const created = await secrets.create(newObject(Kinds.Secret, { name: 'api', namespace: 'team' }, { stringData: { token: secretValue } }));
    await secrets.update({ ...created, stringData: { token: `${secretValue}-v2` } });
    await cluster.resource(Kinds.ConfigMap).create(newObject(Kinds.ConfigMap, { name: 'control', namespace: 'team' }, { data: { value: clearValue } }));
    assert.equal(Buffer.from((await secrets.get('team', 'api'))?.data?.token ?? '', 'base64').toString(), `${secretValue}-v2`);
    await cluster.close();

    const files = readdirSync(store.dir).map((name) => readFileSync(join(store.dir, name)).toString('latin1'));
    const everything = files.join('\n');
    assert.ok(everything.includes(clearValue), 'control: a ConfigMap value is readable in the file, so the search works');
    for (const needle of [secretValue, Buffer.from(secretValue).toString('base64'), Buffer.from(`${secretValue}-v2`).toString('base64')]) {
      assert.ok(!everything.includes(needle), `the store file must not contain ${needle}`);
    }

    await assert.rejects(openEmbeddedCluster({ file: store.file, encryptionKey: randomBytes(32) }), /encryption key does not match/);
    cluster = await openStore(store);
    const reread = await cluster.resource(Kinds.Secret).get('team', 'api');
    assert.equal(Buffer.from(reread?.data?.token ?? '', 'base64').toString(), `${secretValue}-v2`);
  });

  it('refuses an encryption key that is not 32 bytes', async function () {
    await assert.rejects(openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(16) }), /32-byte/);
  });

  it('compacts old events: a watch from a compacted version ends with GoneError, a recent one replays', async function () {
    await cluster.close();
    cluster = await openStore(store, { eventRetention: 5 });
    const configMaps = cluster.resource(Kinds.ConfigMap);
    for (let i = 0; i < 10; i++) await configMaps.create(configMap(`cm-${i}`));
    const current = Number((await configMaps.list('team')).resourceVersion);

    const stale = new EventCollector();
    const staleWatch = await configMaps.watch('team', { resourceVersion: String(current - 6) }, stale.onEvent, stale.onError);
    await staleWatch.done;
    assert.equal(stale.errors.length, 1);
    assert.ok(stale.errors[0] instanceof GoneError);
    assert.equal((stale.errors[0] as ClusterError).code, 410);
    assert.deepEqual(stale.events, []);

    const recent = new EventCollector();
    const recentWatch = await configMaps.watch('team', { resourceVersion: String(current - 5) }, recent.onEvent, recent.onError);
    await recent.untilCount(5);
    assert.deepEqual(recent.summary, ['ADDED cm-5', 'ADDED cm-6', 'ADDED cm-7', 'ADDED cm-8', 'ADDED cm-9']);
    await recentWatch.stop();
  });

  it('bounds the kept events by size too', async function () {
    await cluster.close();
    cluster = await openStore(store, { eventRetentionBytes: 250_000 });
    const configMaps = cluster.resource(Kinds.ConfigMap);
    const start = (await configMaps.list('team')).resourceVersion;
    const created: KubeObject[] = [];
    for (let i = 0; i < 4; i++) {
      created.push(await configMaps.create(newObject(Kinds.ConfigMap, { name: `big-${i}`, namespace: 'team' }, { data: { blob: String(i).repeat(100_000) } })));
    }
    const stale = new EventCollector();
    await (await configMaps.watch('team', { resourceVersion: start }, stale.onEvent, stale.onError)).done;
    assert.ok(stale.errors[0] instanceof GoneError, 'the oldest large events were dropped');
    const recent = new EventCollector();
    const watch = await configMaps.watch('team', { resourceVersion: created[1].metadata.resourceVersion }, recent.onEvent, recent.onError);
    await recent.untilCount(2);
    assert.deepEqual(recent.summary, ['ADDED big-2', 'ADDED big-3']);
    await watch.stop();
  });

  it('a watch from a version not reached yet delivers only the events after it', async function () {
    const configMaps = cluster.resource(Kinds.ConfigMap);
    const now = Number((await configMaps.list('team')).resourceVersion);
    const events = new EventCollector();
    const watch = await configMaps.watch('team', { resourceVersion: String(now + 2) }, events.onEvent, events.onError);
    for (const name of ['first', 'second', 'third']) await configMaps.create(configMap(name));
    await events.untilSeen('ADDED', 'third');
    assert.deepEqual(events.summary, ['ADDED third']);
    await watch.stop();
  });

  it('rolls a failed write back whole: no object, version or event of it remains', async function () {
    const functions = cluster.resource(Kinds.Function);
    const owner = await functions.create(newObject(Kinds.Function, { name: 'owner', namespace: 'team' }, { spec: { name: 'owner' } }));
    const child = await cluster.resource(Kinds.Build).create(
      newObject(Kinds.Build, { name: 'child', namespace: 'team', ownerReferences: [ownerReferenceTo(owner)] }, { spec: { entrypoint: 'a.ts', archiveConfigMap: 'x' } }),
    );
    const configMaps = cluster.resource(Kinds.ConfigMap);
    await configMaps.create(newObject(Kinds.ConfigMap, { name: 'poison', namespace: 'team', ownerReferences: [ownerReferenceTo(child)] }, { data: {} }));
    await configMaps.create(configMap('fuse'));
    await cluster.close();

    // A real SQLite failure in the middle of the cascade: the third deletion's event cannot be written
    // while the "fuse" ConfigMap exists.
    const raw = new sqlite.Database(store.file);
    // The store's write-ahead log needs shared memory, which this SQLite build has only under an exclusive lock.
    raw.exec('PRAGMA locking_mode = EXCLUSIVE');
    raw.exec(`CREATE TRIGGER inject_failure BEFORE INSERT ON events
              WHEN NEW.name = 'poison' AND EXISTS (SELECT 1 FROM objects WHERE name = 'fuse')
              BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    raw.close();

    cluster = await openStore(store);
    const before = (await cluster.resource(Kinds.ConfigMap).list(undefined)).resourceVersion;
    const events = new EventCollector();
    const watch = await cluster.resource(Kinds.ConfigMap).watch('team', {}, events.onEvent, events.onError);
    await assert.rejects(cluster.resource(Kinds.Function).delete('team', 'owner'), /injected failure/);
    assert.ok(await cluster.resource(Kinds.Function).get('team', 'owner'));
    assert.ok(await cluster.resource(Kinds.Build).get('team', 'child'));
    assert.ok(await cluster.resource(Kinds.ConfigMap).get('team', 'poison'));
    assert.equal((await cluster.resource(Kinds.ConfigMap).list(undefined)).resourceVersion, before);

    await cluster.resource(Kinds.ConfigMap).delete('team', 'fuse');
    await events.untilCount(1);
    assert.deepEqual(events.summary, ['DELETED fuse']);
    assert.equal(events.events[0].object.metadata.resourceVersion, String(Number(before) + 1));
    await cluster.resource(Kinds.Function).delete('team', 'owner');
    assert.equal(await cluster.resource(Kinds.ConfigMap).get('team', 'poison'), undefined);
    await watch.stop();
  });

  it('opens a file left behind by a process killed while holding it', async function () {
    await cluster.close();
    const entry = new URL('../../src/cluster/embedded/index.js', import.meta.url).href;
    const objects = new URL('../../src/cluster/objects.js', import.meta.url).href;
    const script = `
      const { openEmbeddedCluster } = await import(process.env.STORE_ENTRY);
      const { Kinds } = await import(process.env.STORE_OBJECTS);
      const cluster = await openEmbeddedCluster({ file: process.env.STORE_FILE, encryptionKey: Buffer.from(process.env.STORE_KEY, 'hex') });
      await cluster.resource(Kinds.ConfigMap).create({ metadata: { name: 'survivor', namespace: 'team' }, data: { a: 'b' } });
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, STORE_ENTRY: entry, STORE_OBJECTS: objects, STORE_FILE: store.file, STORE_KEY: store.key.toString('hex') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    assert.equal(signal, 'SIGKILL', `the child should have killed itself; stderr: ${stderr}`);
    assert.ok(existsSync(`${store.file}.lock`), 'the killed process left its SQLite lock behind');

    cluster = await openStore(store);
    assert.deepEqual((await cluster.resource(Kinds.ConfigMap).get('team', 'survivor'))?.data, { a: 'b' });
  });

  it('syncs its log at checkpoints, not at each commit, unless told to sync every commit', async function () {
    await cluster.close();
    /** The file syncs SQLite asks for (its VFS calls fs.fsyncSync) while a fresh store takes `writes` writes. */
    const syncsOf = async (sync: StoreSync | undefined, writes: number): Promise<number> => {
      const opened = await openEmbeddedCluster({ file: tempStore().file, encryptionKey: randomBytes(32), ...(sync ? { sync } : {}) });
      const fsyncSync = fs.fsyncSync;
      let syncs = 0;
      fs.fsyncSync = (fd) => {
        syncs += 1;
        fsyncSync(fd);
      };
      try {
        for (let i = 0; i < writes; i += 1) await opened.resource(Kinds.ConfigMap).create(configMap(`c${i}`));
      } finally {
        fs.fsyncSync = fsyncSync;
        await opened.close();
      }
      return syncs;
    };
    assert.equal(await syncsOf(undefined, 20), 0, 'by default commits stay in the log, in the OS cache, until a checkpoint');
    assert.ok((await syncsOf('full', 20)) >= 20, "with 'full' each commit is synced");
    cluster = await openStore(store);
  });

  it('refuses to open a file that is already open in this process', async function () {
    await assert.rejects(openStore(store), /already open in this process/);
  });

  it('lists in namespace/name order and rejects bad requests with InvalidError', async function () {
    const configMaps = cluster.resource(Kinds.ConfigMap);
    for (const [ns, name] of [['b', 'y'], ['a', 'z'], ['b', 'x'], ['a', 'a1'], ['a', 'a.0']]) await configMaps.create(configMap(name, undefined, ns));
    assert.deepEqual(
      (await configMaps.list(undefined)).items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      ['a/a.0', 'a/a1', 'a/z', 'b/x', 'b/y'],
    );
    const invalid: [string, Promise<unknown>][] = [
      ['no namespace', configMaps.create(newObject(Kinds.ConfigMap, { name: 'x' }, { data: {} }))],
      ['bad label value', configMaps.create(configMap('x', { app: 'no spaces' }))],
      ['bad label key', configMaps.create(configMap('x', { '-app': 'ok' }))],
      ['two controllers', configMaps.create({ ...configMap('x'), metadata: { name: 'x', namespace: 'a', ownerReferences: [1, 2].map((i) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `o${i}`, uid: `u${i}`, controller: true })) } })],
      ['wrong kind', configMaps.create({ ...configMap('x'), kind: 'Secret' })],
      ['bad secret data', cluster.resource(Kinds.Secret).create(newObject(Kinds.Secret, { name: 's', namespace: 'a' }, { data: { k: 'not base64!' } }))],
      ['status of a kind without status', configMaps.updateStatus(configMap('a1', undefined, 'a'))],
      ['bad resourceVersion', configMaps.watch('a', { resourceVersion: 'abc' }, () => {})],
      ['bad field selector', configMaps.list('a', { fieldSelector: 'spec.x=1' })],
    ];
    for (const [what, call] of invalid) await assert.rejects(call, (err: unknown) => err instanceof InvalidError, what);
    assert.deepEqual((await configMaps.list(undefined, { fieldSelector: 'metadata.name=x' })).items.map((o) => o.metadata.namespace), ['b']);
  });

  it('bumps ConfigMap generation on data changes only, and stores cluster-scoped kinds without a namespace', async function () {
    const configMaps = cluster.resource(Kinds.ConfigMap);
    const created = await configMaps.create(configMap('gen'));
    const relabeled = await configMaps.update({ ...created, metadata: { ...created.metadata, labels: { a: 'b' } } });
    assert.equal(relabeled.metadata.generation, 1);
    const changed = await configMaps.update({ ...relabeled, binaryData: { blob: 'AAE=' } });
    assert.equal(changed.metadata.generation, 2);
    const namespace = await cluster.resource(Kinds.Namespace).create(newObject(Kinds.Namespace, { name: 'scoped', namespace: 'ignored' }, {}));
    assert.equal(namespace.metadata.namespace, undefined);
    assert.deepEqual(namespace.status, { phase: 'Active' });
    assert.ok(await cluster.resource(Kinds.Namespace).get(undefined, 'scoped'));
  });

  it('ends a watch whose handler throws, reporting the error to onError', async function () {
    const failure = new Error('handler bug');
    const errors: Error[] = [];
    let calls = 0;
    const watch = await cluster.resource(Kinds.ConfigMap).watch('team', {}, () => {
      calls += 1;
      throw failure;
    }, (err) => errors.push(err));
    await cluster.resource(Kinds.ConfigMap).create(configMap('one'));
    await cluster.resource(Kinds.ConfigMap).create(configMap('two'));
    await watch.done;
    assert.equal(calls, 1);
    assert.deepEqual(errors, [failure]);
  });

  it('property: a label-selector list (through the label index) equals every object filtered by the selector', async function () {
    type Kind = typeof Kinds.ConfigMap | typeof Kinds.Secret;
    const labelValue = fc.constantFrom('red', 'blue', 'green');
    const labels = fc.option(fc.record({ team: labelValue, tier: labelValue }, { requiredKeys: [] }), { nil: undefined });
    const op = fc.record({
      kind: fc.constantFrom('configmap', 'secret'),
      namespace: fc.constantFrom('one', 'two'),
      name: fc.constantFrom('a', 'b', 'c'),
      action: fc.constantFrom('put', 'put', 'delete', 'owner-delete'),
      labels,
    });
    const selector = fc.constantFrom('team=red', 'team==blue', 'team in (red,green)', 'team=red,tier=blue', 'tier in (blue),team!=red', 'team notin (red)', 'team', '!tier', 'team=red,!tier', '');
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), fc.array(selector, { minLength: 1, maxLength: 4 }), async (ops, selectors) => {
        const memory = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
        try {
          const owner = await memory.resource(Kinds.ConfigMap).create(configMap('owner', undefined, 'one'));
          for (const { kind, namespace, name, action, labels: wanted } of ops) {
            const type: Kind = kind === 'secret' ? Kinds.Secret : Kinds.ConfigMap;
            const client = memory.resource(type);
            const existing = await client.get(namespace, name);
            if (action === 'delete') {
              if (existing) await client.delete(namespace, name);
            } else if (existing) {
              await client.update({ ...existing, metadata: { ...existing.metadata, labels: wanted } });
            } else {
              // Some are owned, so the garbage collector removes them with their owner below.
              const ownerReferences = action === 'owner-delete' && namespace === 'one' ? [ownerReferenceTo(owner)] : undefined;
              await client.create(newObject(type, { name, namespace, labels: wanted, ownerReferences }, type === Kinds.Secret ? { stringData: { k: name } } : { data: { k: name } }));
            }
          }
          if (ops.some((o) => o.action === 'owner-delete')) await memory.resource(Kinds.ConfigMap).delete('one', 'owner');
          for (const type of [Kinds.ConfigMap, Kinds.Secret]) {
            const client = memory.resource(type);
            for (const namespace of ['one', 'two', undefined]) {
              const everything = (await client.list(namespace)).items;
              for (const wanted of selectors) {
                const matching = parseLabelSelector(wanted);
                const expected = everything.filter((o) => matching.matches(o.metadata.labels)).map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`);
                const listed = (await client.list(namespace, { labelSelector: wanted })).items.map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`);
                assert.deepEqual(listed, expected, `${type.kind} in ${namespace ?? 'all namespaces'} with "${wanted}"`);
              }
            }
          }
        } finally {
          await memory.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('indexes labels in the file for every kind but Secrets, whose labels stay sealed in their row, and drops them with their object', async function () {
    const marker = `m${randomBytes(6).toString('hex')}`;
    const indexedLabels = async () => {
      await cluster.close();
      const db = new sqlite.Database(store.file);
      try {
        db.exec('PRAGMA locking_mode = EXCLUSIVE');
        return db.all('SELECT resource, key, value FROM labels ORDER BY resource, value');
      } finally {
        db.close();
        cluster = await openStore(store);
      }
    };
    await cluster.resource(Kinds.ConfigMap).create(configMap('plain', { marker: `${marker}-plain` }));
    await cluster.resource(Kinds.ConfigMap).create(configMap('doomed', { marker: `${marker}-doomed` }));
    await cluster.resource(Kinds.Secret).create(newObject(Kinds.Secret, { name: 'sealed', namespace: 'team', labels: { marker: `${marker}-sealed` } }, { stringData: { k: 'v' } }));
    assert.deepEqual((await cluster.resource(Kinds.Secret).list('team', { labelSelector: `marker=${marker}-sealed` })).items.map((o) => o.metadata.name), ['sealed']);
    assert.deepEqual(await indexedLabels(), [
      { resource: 'configmaps', key: 'marker', value: `${marker}-doomed` },
      { resource: 'configmaps', key: 'marker', value: `${marker}-plain` },
    ]);
    await cluster.resource(Kinds.ConfigMap).delete('team', 'doomed');
    assert.deepEqual(await indexedLabels(), [{ resource: 'configmaps', key: 'marker', value: `${marker}-plain` }]);
  });

  it('builds the label index when it opens a file of schema version 1', async function () {
    const configMaps = cluster.resource(Kinds.ConfigMap);
    await configMaps.create(configMap('red-one', { team: 'red' }));
    await configMaps.create(configMap('blue-one', { team: 'blue' }));
    await configMaps.create(configMap('red-two', { team: 'red' }, 'other'));
    await cluster.close();
    // What a version 1 file holds: no label table, version 1 in its meta.
    const db = new sqlite.Database(store.file);
    try {
      db.exec('PRAGMA locking_mode = EXCLUSIVE');
      db.exec("DROP TABLE labels; UPDATE meta SET value = '1' WHERE key = 'schemaVersion'");
    } finally {
      db.close();
    }
    cluster = await openStore(store);
    const red = await cluster.resource(Kinds.ConfigMap).list(undefined, { labelSelector: 'team=red' });
    assert.deepEqual(red.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`), ['other/red-two', 'team/red-one']);
    await cluster.resource(Kinds.ConfigMap).create(configMap('red-three', { team: 'red' }));
    assert.equal((await cluster.resource(Kinds.ConfigMap).list('team', { labelSelector: 'team in (red)' })).items.length, 2);
    await cluster.close();
    const reopened = new sqlite.Database(store.file);
    try {
      reopened.exec('PRAGMA locking_mode = EXCLUSIVE');
      assert.equal(reopened.get("SELECT value FROM meta WHERE key = 'schemaVersion'")?.value, '2');
    } finally {
      reopened.close();
    }
    cluster = await openStore(store);
  });

  it('property: a label-selector watch folded over its events always equals a fresh list', async function () {
    const op = fc.record({
      name: fc.constantFrom('a', 'b', 'c', 'd'),
      action: fc.constantFrom('put', 'put', 'delete'),
      team: fc.option(fc.constantFrom('red', 'blue'), { nil: undefined }),
    });
    type Op = { name: string; action: string; team?: string };
    const apply = async (configMaps: ResourceClient, ops: Op[]): Promise<void> => {
      for (const [i, { name, action, team }] of ops.entries()) {
        const existing = await configMaps.get('team', name);
        const labels = team ? { team } : undefined;
        if (action === 'delete') {
          if (existing) await configMaps.delete('team', name);
        } else if (existing) {
          await configMaps.update({ ...existing, metadata: { ...existing.metadata, labels }, data: { i: String(i) } });
        } else {
          await configMaps.create(configMap(name, labels));
        }
      }
    };
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), fc.nat(), async (ops, split) => {
        const memory = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
        try {
          const configMaps = memory.resource(Kinds.ConfigMap);
          const selector = 'team=red';
          const startAt = split % (ops.length + 1);
          await apply(configMaps, ops.slice(0, startAt));
          const listed = await configMaps.list('team', { labelSelector: selector });
          const state = new Map(listed.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
          const events = new EventCollector();
          const watch = await configMaps.watch('team', { resourceVersion: listed.resourceVersion, labelSelector: selector }, events.onEvent, events.onError);
          await apply(configMaps, ops.slice(startAt));
          await configMaps.create(configMap('zz-barrier', { team: 'red' }));
          await events.untilSeen('ADDED', 'zz-barrier');
          await watch.stop();

          const versions = events.events.map((e) => Number(e.object.metadata.resourceVersion));
          assert.deepEqual(versions, [...versions].sort((x, y) => x - y), 'events arrive in resourceVersion order');
          for (const event of events.events) {
            if (event.type === 'DELETED') state.delete(event.object.metadata.name);
            else state.set(event.object.metadata.name, event.object.metadata.resourceVersion);
          }
          const expected = (await configMaps.list('team', { labelSelector: selector })).items.map((o) => [o.metadata.name, o.metadata.resourceVersion]);
          assert.deepEqual([...state.entries()].sort(([x], [y]) => (x < y ? -1 : 1)), expected);
        } finally {
          await memory.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
