// The queue cap's count of a project's waiting invocations: by listing until a watch-fed cache has
// synced, then from the cache, counting at once what this process just created (a caller's next
// invoke must see it) and each invocation once.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import { Informer } from '../../src/controller/runtime/informer.js';
import { WaitingInvocations, type InvocationCache } from '../../src/functions/waiting-invocations.js';
import type { InvocationObject } from '../../src/schemas/resources.js';
import { waitFor } from '../support/service.js';

describe('waiting invocations (the queue cap count)', () => {
  let cluster: ClusterPort;
  const invocations = () => cluster.resource<InvocationObject>(Kinds.Invocation);

  beforeEach(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
  });
  afterEach(async () => {
    await cluster.close();
  });

  async function createInvocation(project: string, status?: InvocationObject['status']): Promise<InvocationObject> {
    const created = await invocations().create({
      apiVersion: 'browserfn.dev/v1alpha1',
      kind: 'Invocation',
      metadata: { name: randomUUID(), namespace: project },
      spec: { functionName: 'f', functionUid: randomUUID(), versionId: randomUUID(), bundleConfigMap: 'bundle', params: {}, sessionConfig: {}, timeoutSeconds: 60, sessionId: randomUUID() },
    });
    return status ? invocations().updateStatus({ ...created, status }) : created;
  }

  /** One of each: waiting, given a pod, completed, failed before it got a pod. */
  async function createMix(project: string): Promise<InvocationObject> {
    const waiting = await createInvocation(project);
    await createInvocation(project, { phase: 'RUNNING', podName: 'pod-a' });
    await createInvocation(project, { phase: 'COMPLETED', podName: 'pod-b' });
    await createInvocation(project, { phase: 'FAILED' });
    return waiting;
  }

  it('without a synced cache, lists: only the project’s invocations that have no pod and have not ended count', async () => {
    await createMix('a');
    await createInvocation('b');
    const waiting = new WaitingInvocations(cluster);
    assert.equal(await waiting.count('a'), 1);
    assert.equal(await waiting.count('b'), 1);
    assert.equal(await waiting.count('c'), 0);
  });

  it('from a synced informer: the same count, and an invocation leaves it once the cache hears it was given a pod', async () => {
    const first = await createMix('a');
    const informer = new Informer<InvocationObject>(cluster, Kinds.Invocation, createLogger('silent'));
    informer.start();
    try {
      await informer.waitForSync();
      const waiting = new WaitingInvocations(cluster);
      waiting.readFrom(informer);
      const second = await createInvocation('a');
      waiting.created(second);
      assert.equal(await waiting.count('a'), 2);
      await invocations().updateStatus({ ...first, status: { phase: 'RUNNING', podName: 'pod-c' } });
      await waitFor('the informer to hear of the pod', async () => ((await waiting.count('a')) === 1 ? true : undefined), 10_000, 10);
      assert.equal(await waiting.count('b'), 0);
    } finally {
      await informer.stop();
    }
  });

  it('counts an invocation created here at once, before the cache hears of it, and once after', async () => {
    const cache = new FakeCache();
    const waiting = new WaitingInvocations(cluster);
    waiting.readFrom(cache);
    const created = await createInvocation('a');
    waiting.created(created);
    assert.equal(await waiting.count('a'), 1);
    assert.equal(await waiting.count('b'), 0);
    cache.put(created);
    assert.equal(await waiting.count('a'), 1);
    // The cache's view wins from then on: given a pod, it no longer waits.
    cache.put({ ...created, status: { phase: 'RUNNING', podName: 'pod-a' } });
    assert.equal(await waiting.count('a'), 0);
  });

  it('stops counting one the cache never hears of after a minute', async () => {
    let now = 0;
    const waiting = new WaitingInvocations(cluster, () => now);
    waiting.readFrom(new FakeCache());
    waiting.created(await createInvocation('a'));
    now = 59_000;
    assert.equal(await waiting.count('a'), 1);
    now = 61_000;
    assert.equal(await waiting.count('a'), 0);
  });
});

/** A synced cache whose content the test sets. */
class FakeCache implements InvocationCache {
  readonly hasSynced = true;
  readonly #objects = new Map<string, InvocationObject>();

  put(invocation: InvocationObject): void {
    this.#objects.set(`${invocation.metadata.namespace}/${invocation.metadata.name}`, invocation);
  }

  get(namespace: string, name: string): InvocationObject | undefined {
    return this.#objects.get(`${namespace}/${name}`);
  }

  list(filter: (invocation: InvocationObject) => boolean): InvocationObject[] {
    return [...this.#objects.values()].filter(filter);
  }
}
