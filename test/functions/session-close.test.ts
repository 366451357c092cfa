// Reading the session of an invocation that has just ended, over the real embedded store: its pod
// reports the outcome first and the session's records once the session has closed, so a read in
// between waits for them (and the recording with them) while the pod still closes the session, and
// answers at once when the session is closed or cannot close any more.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { awaitSessionClosed, isSessionClosing, sessionRecords } from '../../src/functions/invocations.js';
import { outcomeConfigMap } from '../../src/functions/stored/invocation-outcome.js';
import { sessionRecordsConfigMap } from '../../src/functions/stored/session-records.js';
import { AGENT_CONTAINER, type PodObject } from '../../src/schemas/pod.js';
import type { InvocationObject, InvocationStatus } from '../../src/schemas/resources.js';

const WAIT_MS = 30_000;
const RECORDS = { sessionLogs: [{ method: 'Page.loadEventFired', timestamp: 1, params: {} }], metrics: { intervalMs: 1000, samples: [], navigations: [], dropped: { samples: 0, navigations: 0 } } };

describe('the session of an invocation that has just ended (embedded store)', () => {
  let cluster: ClusterPort;

  beforeEach(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
  });
  afterEach(() => cluster.close());

  /** An invocation in `phase` run by a pod (running unless said otherwise), with its outcome reported when `reported`. */
  async function invocationWithPod(phase: InvocationStatus['phase'], { reported = true, agentExited = false } = {}): Promise<InvocationObject> {
    const name = randomUUID();
    const podName = `${name}-pod`;
    const created = await cluster.resource<InvocationObject>(Kinds.Invocation).create({
      apiVersion: 'browserfn.dev/v1alpha1',
      kind: 'Invocation',
      metadata: { name, namespace: 'p' },
      spec: { functionName: 'f', functionUid: randomUUID(), versionId: randomUUID(), bundleConfigMap: 'b', params: {}, sessionConfig: {}, timeoutSeconds: 60, sessionId: randomUUID() },
    } as InvocationObject);
    const inv = await cluster.resource<InvocationObject>(Kinds.Invocation).updateStatus({ ...created, status: { phase, podName } });
    const pod = await cluster.resource<PodObject>(Kinds.Pod).create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: podName, namespace: 'p' }, spec: { containers: [{ name: AGENT_CONTAINER, image: 'runtime' }] } } as PodObject);
    if (agentExited) {
      await cluster.resource<PodObject>(Kinds.Pod).updateStatus({ ...pod, status: { phase: 'Running', containerStatuses: [{ name: AGENT_CONTAINER, state: { terminated: { exitCode: 0 } } }] } } as PodObject);
    }
    if (reported) {
      const now = new Date().toISOString();
      await cluster.resource(Kinds.ConfigMap).create(outcomeConfigMap(inv, { kind: 'invocation', phase: 'COMPLETED', startedAt: now, endedAt: now, logs: [] }));
    }
    return inv;
  }

  const closeSession = (inv: InvocationObject) => cluster.resource(Kinds.ConfigMap).create(sessionRecordsConfigMap(inv, RECORDS));

  it('waits for the session records of a pod still closing its session, and answers with them', async () => {
    const inv = await invocationWithPod('COMPLETED');
    assert.equal(await isSessionClosing(cluster, inv), true);
    let answered = false;
    const reading = sessionRecords(cluster, undefined, { invocation: inv }, WAIT_MS).finally(() => (answered = true));
    const closed = awaitSessionClosed(cluster, { invocation: inv }, WAIT_MS);
    // Both reads are waiting on their watch once the store has served their list; the close comes after that.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false, 'no answer before the session records are in');
    await closeSession(inv);
    assert.deepEqual(await reading, RECORDS);
    await closed;
    assert.equal(await isSessionClosing(cluster, inv), false);
  });

  it('answers at once when the session has closed, when the pod never reported, when its agent has exited, or when the invocation still runs', async () => {
    const closed = await invocationWithPod('COMPLETED');
    await closeSession(closed);
    assert.deepEqual(await sessionRecords(cluster, undefined, { invocation: closed }, WAIT_MS), RECORDS);

    // A cancelled or timed-out invocation: its pod is deleted, it closes nothing.
    const unreported = await invocationWithPod('FAILED', { reported: false });
    assert.equal(await isSessionClosing(cluster, unreported), false);
    assert.deepEqual(await sessionRecords(cluster, undefined, { invocation: unreported }, WAIT_MS), { sessionLogs: [] });

    const exited = await invocationWithPod('COMPLETED', { agentExited: true });
    assert.equal(await isSessionClosing(cluster, exited), false);
    assert.deepEqual(await sessionRecords(cluster, undefined, { invocation: exited }, WAIT_MS), { sessionLogs: [] });

    const running = await invocationWithPod('RUNNING', { reported: false });
    assert.deepEqual(await sessionRecords(cluster, undefined, { invocation: running }, WAIT_MS), { sessionLogs: [] });
  });

  it('answers with what is stored once its wait is over', async () => {
    const inv = await invocationWithPod('COMPLETED');
    assert.deepEqual(await sessionRecords(cluster, undefined, { invocation: inv }, 1), { sessionLogs: [] });
  });

  it('treats the pod as done with the session once it is being deleted', async () => {
    const inv = await invocationWithPod('COMPLETED');
    await cluster.resource(Kinds.Pod).delete('p', inv.status!.podName!);
    assert.equal(await isSessionClosing(cluster, inv), false);
  });
});
