// Archiving a finished invocation over the real embedded store and the filesystem artifact store,
// with a fake clock: nothing moves before the TTL; then archive, verify, delete (the outcome
// follows); a restart after the archive but before the delete neither loses nor duplicates; a
// failed archive write deletes nothing; GET-side reads answer until the exact end of retention.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import { FilesystemArtifactStore } from '../../src/artifacts/filesystem.js';
import type { Archive } from '../../src/functions/archived/archive.js';
import { archiveInvocation, invocationRecordKey, readArchivedInvocation, readArchivedSession } from '../../src/functions/archived/invocation-record.js';
import { getInvocation, invocationLogs, invocationRecords, sessionRecords, type FoundInvocation } from '../../src/functions/invocations.js';
import { outcomeConfigMap, outcomeName } from '../../src/functions/stored/invocation-outcome.js';
import { sessionRecordsConfigMap, sessionRecordsName } from '../../src/functions/stored/session-records.js';
import { AGENT_CONTAINER, type PodObject } from '../../src/schemas/pod.js';
import { InvocationRetentionReconciler } from '../../src/controller/reconcilers/invocation-retention.js';
import { ArchiveSweepReconciler } from '../../src/controller/reconcilers/archive-sweep.js';
import { isDomainError } from '../../src/domain/errors.js';
import type { InvocationObject } from '../../src/schemas/resources.js';

const TTL_MS = 60_000;
const RETENTION_MS = 86_400_000;

describe('invocation retention with a fake clock (embedded store, filesystem archive)', () => {
  let cluster: ClusterPort;
  let root: string;
  let archive: Archive;
  let now: number;
  let reconciler: InvocationRetentionReconciler;
  const log = createLogger('silent');

  beforeEach(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    root = mkdtempSync(join(tmpdir(), 'browserfn-retention-'));
    now = Date.now();
    archive = { store: await FilesystemArtifactStore.open(join(root, 'artifacts')), retentionMs: RETENTION_MS, now: () => now };
    reconciler = new InvocationRetentionReconciler({ cluster, archive, finishedTtlMs: TTL_MS, clock: () => now, log });
  });
  afterEach(async () => {
    await archive.store.close();
    await cluster.close();
    rmSync(root, { recursive: true, force: true });
  });

  const invocations = () => cluster.resource<InvocationObject>(Kinds.Invocation);
  const reconcile = (inv: InvocationObject) => reconciler.reconcile({ namespace: inv.metadata.namespace, name: inv.metadata.name });

  /** What the façade's read routes answer. */
  const readRecords = async (found: FoundInvocation) => ({ logs: await invocationLogs(cluster, archive, found), ...(await sessionRecords(cluster, archive, found)) });

  async function finishedInvocation({ sessionClosed = true } = {}): Promise<InvocationObject> {
    const endedAt = new Date(now).toISOString();
    const created = await invocations().create({
      apiVersion: 'browserfn.dev/v1alpha1',
      kind: 'Invocation',
      metadata: { name: randomUUID(), namespace: 'p' },
      spec: { functionName: 'f', functionUid: randomUUID(), versionId: randomUUID(), bundleConfigMap: 'b', params: { q: 1 }, sessionConfig: {}, timeoutSeconds: 60, sessionId: randomUUID() },
    } as InvocationObject);
    const inv = await invocations().updateStatus({ ...created, status: { phase: 'COMPLETED', results: { ok: true }, startedAt: endedAt, endedAt } });
    await cluster.resource(Kinds.ConfigMap).create(
      outcomeConfigMap(inv, {
        kind: 'invocation',
        phase: 'COMPLETED',
        results: { ok: true },
        startedAt: endedAt,
        endedAt,
        logs: [{ level: 'info', message: 'hello', timestamp: endedAt }],
      }),
    );
    if (sessionClosed) await closeSession(inv);
    return inv;
  }

  const closeSession = (inv: InvocationObject) =>
    cluster.resource(Kinds.ConfigMap).create(sessionRecordsConfigMap(inv, { sessionLogs: [{ method: 'Page.loadEventFired', timestamp: now, params: {} }] }));

  it('keeps a finished invocation until its TTL, then archives it and removes it with its outcome', async () => {
    const inv = await finishedInvocation();
    const before = await invocationRecords(cluster, { invocation: inv });
    assert.equal(before.sessionLogs.length, 1);
    assert.deepEqual(await reconcile(inv), { requeueAfterMs: TTL_MS });
    now += TTL_MS - 1;
    assert.deepEqual(await reconcile(inv), { requeueAfterMs: 1 });
    assert.ok(await invocations().get('p', inv.metadata.name), 'still in the store before its TTL');

    now += 1;
    await reconcile(inv);
    assert.equal(await invocations().get('p', inv.metadata.name), undefined);
    assert.equal(await cluster.resource(Kinds.ConfigMap).get('p', outcomeName(inv.metadata.name)), undefined, 'the outcome follows its Invocation');
    assert.equal(await cluster.resource(Kinds.ConfigMap).get('p', sessionRecordsName(inv.metadata.name)), undefined, 'and so do the session records');

    const found = await getInvocation(cluster, archive, 'p', inv.metadata.name);
    assert.deepEqual(found.invocation.status, inv.status);
    assert.deepEqual(found.invocation.spec, inv.spec);
    assert.deepEqual(await readRecords(found), before);
    assert.equal((await readArchivedSession(archive, 'p', inv.spec.sessionId))?.invocation.metadata.name, inv.metadata.name);
  });

  it('another project never reads an archived invocation', async () => {
    const inv = await finishedInvocation();
    now += TTL_MS;
    await reconcile(inv);
    await assert.rejects(getInvocation(cluster, archive, 'other', inv.metadata.name), (err) => isDomainError(err, 'not-found'));
    assert.equal(await readArchivedSession(archive, 'other', inv.spec.sessionId), undefined);
  });

  it('a restart between archive and delete: the next reconcile writes the same record once and deletes', async () => {
    const inv = await finishedInvocation();
    now += TTL_MS;
    // The first half of a reconcile that crashed before its delete.
    await archiveInvocation(archive, inv, await invocationRecords(cluster, { invocation: inv }));
    const first = await archive.store.get(invocationRecordKey('p', inv.metadata.name));
    const restarted = new InvocationRetentionReconciler({ cluster, archive, finishedTtlMs: TTL_MS, clock: () => now, log });
    await restarted.reconcile({ namespace: 'p', name: inv.metadata.name });
    assert.equal(await invocations().get('p', inv.metadata.name), undefined);
    assert.deepEqual(await archive.store.get(invocationRecordKey('p', inv.metadata.name)), first, 'the same bytes, rewritten in place');
    assert.deepEqual(readdirSync(join(root, 'artifacts', 'invocations', 'p')), [`${inv.metadata.name}.json`]);
  });

  it('a read that finds the Invocation but not its outcome (archived in between) answers from the archive', async () => {
    const inv = await finishedInvocation();
    const before = await invocationRecords(cluster, { invocation: inv });
    now += TTL_MS;
    await archiveInvocation(archive, inv, before);
    // What the garbage collector does once the Invocation is deleted, seen by a reader holding the Invocation.
    await cluster.resource(Kinds.ConfigMap).delete('p', outcomeName(inv.metadata.name));
    await cluster.resource(Kinds.ConfigMap).delete('p', sessionRecordsName(inv.metadata.name));
    assert.deepEqual(await readRecords({ invocation: inv }), before);
  });

  it('archives an invocation whose pod still closes its session only once the session records are in', async () => {
    const ended = await finishedInvocation({ sessionClosed: false });
    const podName = `${ended.metadata.name}-pod`;
    await cluster.resource<PodObject>(Kinds.Pod).create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: podName, namespace: 'p' },
      spec: { containers: [{ name: AGENT_CONTAINER, image: 'runtime' }] },
    } as PodObject);
    const inv = await invocations().updateStatus({ ...ended, status: { ...ended.status, podName } });
    now += TTL_MS;
    assert.deepEqual(await reconcile(inv), { requeueAfterMs: 1000 }, 'waits for the session to close');
    assert.ok(await invocations().get('p', inv.metadata.name));
    await closeSession(inv);
    await reconcile(inv);
    assert.equal(await invocations().get('p', inv.metadata.name), undefined);
    const archived = await readArchivedInvocation(archive, 'p', inv.metadata.name);
    assert.deepEqual(archived?.sessionLogs.map((entry) => entry.method), ['Page.loadEventFired'], 'archived with its session records');
  });

  it('an archive that cannot be written deletes nothing', async () => {
    const inv = await finishedInvocation();
    now += TTL_MS;
    // A folder where the record's file must go: the rename over it fails.
    mkdirSync(join(root, 'artifacts', 'invocations', 'p', `${inv.metadata.name}.json`), { recursive: true });
    await assert.rejects(reconcile(inv));
    assert.ok(await invocations().get('p', inv.metadata.name), 'the Invocation stays');
    assert.ok(await cluster.resource(Kinds.ConfigMap).get('p', outcomeName(inv.metadata.name)), 'and its outcome');
  });

  it('reads stop at the exact end of retention; the sweep then deletes everything of it', async () => {
    const inv = await finishedInvocation();
    const endedAt = now;
    now += TTL_MS;
    await reconcile(inv);
    now = endedAt + RETENTION_MS - 1;
    assert.ok(await readArchivedInvocation(archive, 'p', inv.metadata.name));
    now = endedAt + RETENTION_MS;
    assert.equal(await readArchivedInvocation(archive, 'p', inv.metadata.name), undefined);
    assert.equal(await readArchivedSession(archive, 'p', inv.spec.sessionId), undefined);

    // The sweep goes by when each record was written (the store's own clock, the real one here).
    const records = [...(await archive.store.list('invocations/')), ...(await archive.store.list('sessions/'))];
    const firstWritten = Math.min(...records.map((r) => r.lastModifiedMs));
    const lastWritten = Math.max(...records.map((r) => r.lastModifiedMs));
    const sweep = new ArchiveSweepReconciler({ archive, sweepIntervalMs: 1000, clock: () => now, log });
    now = firstWritten + RETENTION_MS - 1;
    assert.deepEqual(await sweep.reconcile(), { requeueAfterMs: 1000 });
    assert.equal((await archive.store.list('invocations/')).length, 1, 'not yet past retention by write time');
    now = lastWritten + RETENTION_MS;
    await sweep.reconcile();
    assert.deepEqual([...(await archive.store.list('invocations/')), ...(await archive.store.list('sessions/'))], []);
  });
});
