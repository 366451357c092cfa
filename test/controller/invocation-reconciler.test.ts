// The invocation reconciler over the real embedded store with a fake clock: the deadline and
// lost-pod paths run in milliseconds instead of the minutes they take in real time.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import { Metrics } from '../../src/config/metrics.js';
import { Informer } from '../../src/controller/runtime/informer.js';
import { InvocationReconciler } from '../../src/controller/reconcilers/invocation.js';
import { MAX_ATTEMPTS } from '../../src/controller/policies/invocation.js';
import { browserPod } from '../../src/controller/pods/templates.js';
import { POD_GRACE_SECONDS } from '../../src/schemas/deadlines.js';
import type { InvocationObject } from '../../src/schemas/resources.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { waitFor } from '../support/service.js';

const TIMEOUT_S = 60;

const TEMPLATES = { controlUrl: 'http://127.0.0.1:1', podTokenSecret: 'x', image: 'browserfn' };

describe('invocation reconciler with a fake clock (embedded store)', () => {
  let cluster: ClusterPort;
  let invocations: Informer<InvocationObject>;
  let pods: Informer<PodObject>;
  let now: number;
  let reconciler: InvocationReconciler;
  const log = createLogger('silent');

  beforeEach(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    invocations = new Informer<InvocationObject>(cluster, Kinds.Invocation, log);
    pods = new Informer<PodObject>(cluster, Kinds.Pod, log);
    invocations.start();
    pods.start();
    await Promise.all([invocations.waitForSync(), pods.waitForSync()]);
    now = Date.now();
    reconciler = new InvocationReconciler({
      cluster,
      invocations,
      pods,
      templates: TEMPLATES,
      maxConcurrentInvocations: 1,
      maxRunningInvocationsPerProject: 0,
      metrics: new Metrics(),
      log,
      requeue: () => {},
      clock: () => now,
    });
  });

  afterEach(async () => {
    await invocations.stop();
    await pods.stop();
    await cluster.close();
  });

  async function createInvocation(name = randomUUID()): Promise<InvocationObject> {
    const inv = await cluster.resource<InvocationObject>(Kinds.Invocation).create({
      apiVersion: 'browserfn.dev/v1alpha1',
      kind: 'Invocation',
      metadata: { name, namespace: 'p', annotations: { 'browserfn.dev/created-at': new Date(now).toISOString() } },
      spec: { functionName: 'f', functionUid: randomUUID(), versionId: randomUUID(), bundleConfigMap: 'b', params: {}, sessionConfig: {}, timeoutSeconds: TIMEOUT_S, sessionId: randomUUID() },
    } as InvocationObject);
    await waitFor('the invocation in the cache', async () => invocations.get('p', name));
    return inv;
  }

  const get = async (name: string) => (await cluster.resource<InvocationObject>(Kinds.Invocation).get('p', name))!;
  const reconcile = (name: string) => reconciler.reconcile({ namespace: 'p', name });

  async function startRunning(name: string): Promise<PodObject> {
    await reconcile(name);
    const podName = (await get(name)).status!.podName!;
    const pod = await waitFor('the browser pod in the cache', async () => pods.get('p', podName));
    const running = await cluster.resource<PodObject>(Kinds.Pod).updateStatus({ ...pod, status: { phase: 'Running' } });
    await waitFor('the running pod in the cache', async () => (pods.get('p', podName)?.status?.phase === 'Running' ? true : undefined));
    await reconcile(name);
    assert.equal((await get(name)).status?.phase, 'RUNNING');
    return running;
  }

  it('fails with TIMED_OUT once timeout plus grace passed without a report, and deletes the pod', async () => {
    const { metadata } = await createInvocation();
    const pod = await startRunning(metadata.name);
    now += (TIMEOUT_S + POD_GRACE_SECONDS) * 1000 - 1;
    const waiting = await reconcile(metadata.name);
    assert.deepEqual(waiting, { requeueAfterMs: 1 });
    assert.equal((await get(metadata.name)).status?.phase, 'RUNNING');
    now += 1;
    // The status first; the pod goes with the reconcile that follows at once.
    assert.deepEqual(await reconcile(metadata.name), { requeueAfterMs: 0 });
    const done = await get(metadata.name);
    assert.equal(done.status?.phase, 'FAILED');
    assert.equal(done.status?.cause?.code, 'TIMED_OUT');
    assert.equal(done.status?.endedAt, new Date(now).toISOString());
    const succeeded = done.status?.conditions?.find((c) => c.type === 'Succeeded');
    assert.equal(succeeded?.status, 'False');
    assert.equal(succeeded?.reason, 'TIMED_OUT');
    assert.ok(await cluster.resource<PodObject>(Kinds.Pod).get('p', pod.metadata.name), 'the pod is still there when the status is written');
    await reconcile(metadata.name);
    const left = await cluster.resource<PodObject>(Kinds.Pod).get('p', pod.metadata.name);
    assert.ok(!left || left.metadata.deletionTimestamp, 'the browser pod is deleted');
  });

  it('fails with INTERNAL_ERROR naming why when its pod is still Pending at the deadline, and deletes the pod', async () => {
    const { metadata } = await createInvocation();
    await reconcile(metadata.name);
    const podName = (await get(metadata.name)).status!.podName!;
    const pod = await waitFor('the browser pod in the cache', async () => pods.get('p', podName));
    const unschedulable = { type: 'PodScheduled', status: 'False' as const, reason: 'Unschedulable', message: '0/2 nodes are available: 2 Insufficient memory.' };
    await cluster.resource<PodObject>(Kinds.Pod).updateStatus({ ...pod, status: { phase: 'Pending', conditions: [unschedulable] } });
    await waitFor('the condition in the cache', async () => (pods.get('p', podName)?.status?.conditions ? true : undefined));
    // creationTimestamp has whole seconds: one more second is past the deadline whatever the fraction.
    now += (TIMEOUT_S + POD_GRACE_SECONDS + 1) * 1000;
    assert.deepEqual(await reconcile(metadata.name), { requeueAfterMs: 0 });
    const done = await get(metadata.name);
    assert.equal(done.status?.phase, 'FAILED');
    assert.equal(done.status?.cause?.code, 'INTERNAL_ERROR');
    assert.match(done.status?.cause?.message ?? '', /never started: still Pending .*\(Unschedulable: 0\/2 nodes are available: 2 Insufficient memory\.\); the handler never ran/);
    await reconcile(metadata.name);
    const left = await cluster.resource<PodObject>(Kinds.Pod).get('p', podName);
    assert.ok(!left || left.metadata.deletionTimestamp, 'the browser pod is deleted');
  });

  it('an admission cut short after its pod was made (the operator died before the status write) goes on with that pod: never two', async () => {
    const inv = await createInvocation();
    // What the dead replica got done: the pod of attempt 1, but no podName in the status.
    const made = await cluster.resource<PodObject>(Kinds.Pod).create(browserPod(inv, 1, TEMPLATES));
    await waitFor('the pod in the cache', async () => pods.get('p', made.metadata.name));
    assert.equal((await get(inv.metadata.name)).status?.podName, undefined);
    await reconcile(inv.metadata.name);
    assert.equal((await get(inv.metadata.name)).status?.podName, made.metadata.name);
    const all = await cluster.resource<PodObject>(Kinds.Pod).list('p', { labelSelector: `browserfn.dev/invocation=${inv.metadata.name}` });
    assert.deepEqual(all.items.map((pod) => pod.metadata.uid), [made.metadata.uid], 'the same pod, not a second one');
  });

  it(`starts again when the pod is deleted before it reported, and fails after ${MAX_ATTEMPTS} attempts`, async () => {
    const { metadata } = await createInvocation();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const pod = await startRunning(metadata.name);
      assert.equal(pod.metadata.name, `${metadata.name}-a${attempt}`);
      await cluster.resource(Kinds.Pod).delete('p', pod.metadata.name);
      await waitFor('the pod to leave the cache', async () => (pods.get('p', pod.metadata.name) ? undefined : true));
      await reconcile(metadata.name);
      const status = (await get(metadata.name)).status!;
      if (attempt < MAX_ATTEMPTS) {
        assert.equal(status.phase, 'PENDING', 'retried');
        assert.equal(status.podName, undefined);
        await waitFor('the retry in the cache', async () => (invocations.get('p', metadata.name)?.status?.podName ? undefined : true));
      } else {
        assert.equal(status.phase, 'FAILED');
        assert.equal(status.cause?.code, 'INTERNAL_ERROR');
        assert.match(status.cause?.message ?? "", /deleted before it reported/);
      }
    }
  });
});
