// Warm pool controllers over the real embedded store with a fake clock and no node agent: members
// are Pod objects this test moves through their states, so claims, races, refills, scaling and
// ageing are checked exactly and in milliseconds.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds, newObject } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import { Metrics } from '../../src/config/metrics.js';
import { loadSettings } from '../../src/config/settings.js';
import { Informer } from '../../src/controller/runtime/informer.js';
import { InvocationReconciler } from '../../src/controller/reconcilers/invocation.js';
import { BrowserPoolReconciler } from '../../src/controller/reconcilers/browser-pool.js';
import { DEFAULT_POOL_LABEL, DEFAULT_POOL_NAME, DefaultPoolReconciler } from '../../src/controller/reconcilers/default-pools.js';
import { claimedMember } from '../../src/controller/pods/pool-member.js';
import { CLAIM_START_MS, CPU_BUSY_FRACTION, CPU_BUSY_RECHECK_MS, DEMAND_WINDOW_MS, MEMBER_BACKOFF_MS, MEMBER_FAILURES_BEFORE_BACKOFF, MEMBER_FAILURES_FORGOTTEN_MS, SCALE_DOWN_DELAY_MS } from '../../src/controller/policies/pool.js';
import { memoryBytes } from '../../src/schemas/quantities.js';
import { contentArtifactName, writeArtifact } from '../../src/functions/stored/artifact-store.js';
import { POD_GRACE_SECONDS } from '../../src/schemas/deadlines.js';
import { Annotations, Labels, type BrowserPoolObject, type BrowserPoolSpec, type FunctionObject, type FunctionVersionSpec, type InvocationObject } from '../../src/schemas/resources.js';
import type { RuntimePackage } from '../../src/schemas/runtime-packages.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { waitFor } from '../support/service.js';
import { aroundClusterCalls } from '../support/cluster-calls.js';

const NS = 'p';
const TEMPLATES = { controlUrl: 'http://127.0.0.1:1', podTokenSecret: 'x', image: 'browserfn' };
const log = createLogger('silent');

describe('warm pool controllers with a fake clock (embedded store)', () => {
  let cluster: ClusterPort;
  let invocations: Informer<InvocationObject>;
  let pods: Informer<PodObject>;
  let pools: Informer<BrowserPoolObject>;
  let now: number;

  beforeEach(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    invocations = new Informer<InvocationObject>(cluster, Kinds.Invocation, log);
    pods = new Informer<PodObject>(cluster, Kinds.Pod, log);
    pools = new Informer<BrowserPoolObject>(cluster, Kinds.BrowserPool, log);
    for (const informer of [invocations, pods, pools]) informer.start();
    await Promise.all([invocations.waitForSync(), pods.waitForSync(), pools.waitForSync()]);
    now = Date.now();
  });

  afterEach(async () => {
    await Promise.all([invocations.stop(), pods.stop(), pools.stop()]);
    await cluster.close();
  });

  /** One controller replica: its own informers would only lag more, so they share these. */
  const invocationReconciler = (maxConcurrentInvocations = 10) =>
    new InvocationReconciler({ cluster, invocations, pods, pools, templates: TEMPLATES, maxConcurrentInvocations, maxRunningInvocationsPerProject: 0, metrics: new Metrics(), log, requeue: () => {}, clock: () => now });
  const poolReconciler = (memoryCapBytes = 0, nodeCpuBusyFraction?: () => number | undefined) =>
    new BrowserPoolReconciler({ cluster, pools, pods, invocations, templates: TEMPLATES, memoryCapBytes, nodeCpuBusyFraction, clock: () => now, log });

  async function createPool(spec: Partial<BrowserPoolSpec> = {}, name = 'warm'): Promise<BrowserPoolObject> {
    const pool = await cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).create(newObject<BrowserPoolObject>(Kinds.BrowserPool, { name, namespace: NS }, { spec: { minIdle: 2, maxIdle: 4, ...spec } }));
    await waitFor('the pool in the cache', async () => pools.get(NS, name));
    return pool;
  }

  async function createInvocation(sessionConfig: Record<string, unknown> = {}, bundleConfigMap = `artifact-${'a'.repeat(64)}`): Promise<InvocationObject> {
    const name = randomUUID();
    const inv = await cluster.resource<InvocationObject>(Kinds.Invocation).create({
      apiVersion: 'browserfn.dev/v1alpha1',
      kind: 'Invocation',
      metadata: { name, namespace: NS, annotations: { 'browserfn.dev/created-at': new Date(now).toISOString() } },
      spec: { functionName: 'f', functionUid: randomUUID(), versionId: randomUUID(), bundleConfigMap, params: {}, sessionConfig, timeoutSeconds: 60, sessionId: randomUUID() },
    } as InvocationObject);
    await waitFor('the invocation in the cache', async () => invocations.get(NS, name));
    return inv;
  }

  const members = (pool = 'warm') => pods.list((pod) => pod.metadata.labels?.[Labels.pool] === pool);
  const idle = (pool = 'warm') => members(pool).filter((pod) => !pod.metadata.labels?.[Labels.invocationName] && !pod.metadata.deletionTimestamp);
  /** Idle members as the store has them, whatever the cache shows yet. */
  const idleInStore = async (pool = 'warm') =>
    (await cluster.resource<PodObject>(Kinds.Pod).list(NS, { labelSelector: `${Labels.pool}=${pool},!${Labels.invocationName}` })).items.filter((pod) => !pod.metadata.deletionTimestamp);
  const poolStatus = async (name = 'warm') => (await cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).get(NS, name))!.status!;
  const podOf = async (inv: InvocationObject) => (await cluster.resource<InvocationObject>(Kinds.Invocation).get(NS, inv.metadata.name))!.status?.podName;

  /** What a member's node agent and agent do: the pod runs, then its agent says it is ready. */
  async function makeReady(pod: PodObject): Promise<void> {
    const running = await cluster.resource<PodObject>(Kinds.Pod).updateStatus({ ...pod, status: { phase: 'Running' } });
    await cluster.resource<PodObject>(Kinds.Pod).update({ ...running, metadata: { ...running.metadata, annotations: { ...running.metadata.annotations, [Annotations.memberReady]: new Date(now).toISOString() } } });
  }

  /** Reconciles the pool until its cache shows what it made, then readies its members. */
  async function fillPool(reconciler: BrowserPoolReconciler, count: number, name = 'warm'): Promise<PodObject[]> {
    await reconciler.reconcile({ namespace: NS, name });
    await waitFor(`${count} members in the cache`, async () => (idle(name).length === count ? true : undefined));
    for (const pod of idle(name)) await makeReady(pod);
    return waitFor('ready members in the cache', async () => {
      const ready = idle(name).filter((pod) => pod.metadata.annotations?.[Annotations.memberReady]);
      return ready.length === count ? ready : undefined;
    });
  }

  it('makes minIdle members with their pool\'s launch and resources, and reports them in status', async () => {
    await createPool({ minIdle: 2, launch: { viewport: { width: 1024, height: 768 } }, resources: { requests: { memory: '1Gi' } } });
    const reconciler = poolReconciler();
    const ready = await fillPool(reconciler, 2);
    for (const pod of ready) {
      const env = Object.fromEntries(pod.spec.containers[0].env!.map((e) => [e.name, e.value]));
      assert.equal(env.BROWSERFN_POOL_MEMBER, '1');
      assert.equal(env.BROWSERFN_VIEWPORT, '1024x768');
      assert.equal(pod.spec.containers[0].resources?.requests?.memory, '1Gi');
      assert.equal(pod.metadata.ownerReferences?.[0].kind, 'BrowserPool');
    }
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    const { ready: readyCount, starting, claimed, desired } = await poolStatus();
    assert.deepEqual({ readyCount, starting, claimed, desired }, { readyCount: 2, starting: 0, claimed: 0, desired: 2 });
  });

  it('gives members a pool\'s CPU limit, and makes none for a limit below the CPU they request', async () => {
    await createPool({ minIdle: 1, maxIdle: 1, resources: { limits: { cpu: '1500m' } } });
    const reconciler = poolReconciler();
    const [member] = await fillPool(reconciler, 1);
    assert.deepEqual(member.spec.containers[0].resources, { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi', cpu: '1500m' } });
    await createPool({ minIdle: 1, maxIdle: 1, resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } }, 'throttled');
    await reconciler.reconcile({ namespace: NS, name: 'throttled' });
    const ready = (await poolStatus('throttled')).conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.reason, 'InvalidSpec');
    assert.match(ready?.message ?? '', /spec\.resources\.limits\.cpu \(1\) is less than the CPU each member requests \(2\)/);
    assert.deepEqual(await idleInStore('throttled'), [], 'no member made');
  });

  it('lets two controllers race for the same members without any member claimed twice', async () => {
    await createPool({ minIdle: 3, maxIdle: 3 });
    await fillPool(poolReconciler(), 3);
    const replicas = [invocationReconciler(), invocationReconciler()];
    const invs = await Promise.all(Array.from({ length: 8 }, () => createInvocation()));
    // Each invocation is admitted by both replicas at once, as two operators without a lease would.
    await Promise.all(invs.flatMap((inv) => replicas.map((replica) => replica.reconcile({ namespace: NS, name: inv.metadata.name }).catch(() => undefined))));
    const claimedFor = new Map<string, string>();
    for (const pod of (await cluster.resource<PodObject>(Kinds.Pod).list(NS, { labelSelector: Labels.pool })).items) {
      const inv = pod.metadata.labels?.[Labels.invocationName];
      if (inv) claimedFor.set(pod.metadata.name, inv);
    }
    assert.equal(claimedFor.size, 3, 'all three members were claimed');
    assert.equal(new Set(claimedFor.values()).size, 3, 'by three different invocations');
    for (const inv of invs) {
      const podName = await podOf(inv);
      assert.ok(podName, `invocation ${inv.metadata.name} got a pod`);
      if (claimedFor.has(podName)) assert.equal(claimedFor.get(podName), inv.metadata.name, `${podName} serves the invocation that names it`);
      else assert.equal(podName, `${inv.metadata.name}-a1`, 'the others start cold');
    }
  });

  it('adopts a member claimed before a restart lost the status update, instead of claiming another', async () => {
    await createPool({ minIdle: 2, maxIdle: 2 });
    const [first] = await fillPool(poolReconciler(), 2);
    const inv = await createInvocation();
    await cluster.resource<PodObject>(Kinds.Pod).update(claimedMember(first, inv, new Date(now)));
    await waitFor('the claim in the cache', async () => (pods.get(NS, first.metadata.name)?.metadata.labels?.[Labels.invocationName] ? true : undefined));
    await invocationReconciler().reconcile({ namespace: NS, name: inv.metadata.name });
    assert.equal(await podOf(inv), first.metadata.name);
    assert.equal(idle().length, 1, 'the other member is still idle');
  });

  it('claims a ready member first, then one still starting, never one that ended, and only then starts cold', async () => {
    await createPool({ minIdle: 3, maxIdle: 3 });
    await poolReconciler().reconcile({ namespace: NS, name: 'warm' });
    const [ended, starting, ready] = await waitFor('three members in the cache', async () => (idle().length === 3 ? idle() : undefined));
    await cluster.resource<PodObject>(Kinds.Pod).updateStatus({ ...ended, status: { phase: 'Failed', reason: 'Error' } });
    await makeReady(ready);
    await waitFor('the members\' states in the cache', async () =>
      pods.get(NS, ended.metadata.name)?.status?.phase === 'Failed' && pods.get(NS, ready.metadata.name)?.metadata.annotations?.[Annotations.memberReady] ? true : undefined,
    );
    const claimedInOrder: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const inv = await createInvocation();
      await invocationReconciler().reconcile({ namespace: NS, name: inv.metadata.name });
      const podName = (await podOf(inv))!;
      claimedInOrder.push(podName === `${inv.metadata.name}-a1` ? 'cold' : podName);
      if (podName !== `${inv.metadata.name}-a1`) await waitFor('the claim in the cache', async () => (pods.get(NS, podName)?.metadata.labels?.[Labels.invocationName] === inv.metadata.name ? true : undefined));
    }
    assert.deepEqual(claimedInOrder, [ready.metadata.name, starting.metadata.name, 'cold']);
  });

  it('claims a starting member whose node reported it running after the cache saw it, instead of starting cold', async () => {
    await createPool({ minIdle: 1, maxIdle: 1 });
    await poolReconciler().reconcile({ namespace: NS, name: 'warm' });
    const [member] = await waitFor('the member in the cache', async () => (idle().length === 1 ? idle() : undefined));
    const inv = await createInvocation();
    // Written before the cache hears of it: the claim, made from the cache, loses to it.
    await cluster.resource<PodObject>(Kinds.Pod).updateStatus({ ...member, status: { phase: 'Running' } });
    assert.equal(pods.get(NS, member.metadata.name)?.metadata.resourceVersion, member.metadata.resourceVersion, 'the cache still has the member as it was');
    await invocationReconciler().reconcile({ namespace: NS, name: inv.metadata.name });
    assert.equal(await podOf(inv), member.metadata.name);
    const claimed = await cluster.resource<PodObject>(Kinds.Pod).get(NS, member.metadata.name);
    assert.equal(claimed?.metadata.labels?.[Labels.invocationName], inv.metadata.name);
    assert.equal(claimed?.status?.phase, 'Running', 'the status it was claimed over is kept');
  });

  it('claims members of a pool with the invocation\'s launch only, and starts others cold', async () => {
    await createPool({ minIdle: 1, maxIdle: 1, launch: { viewport: { width: 1280, height: 720 } } });
    const [member] = await fillPool(poolReconciler(), 1);
    const other = await createInvocation({ browserSettings: { viewport: { width: 800, height: 600 } } });
    await invocationReconciler().reconcile({ namespace: NS, name: other.metadata.name });
    assert.equal(await podOf(other), `${other.metadata.name}-a1`, 'another launch starts cold');
    const matching = await createInvocation({ browserSettings: { viewport: { width: 1280, height: 720 } }, userMetadata: { team: 'x' } });
    await invocationReconciler().reconcile({ namespace: NS, name: matching.metadata.name });
    assert.equal(await podOf(matching), member.metadata.name, 'settings that do not change the launch still match');
  });

  it('gives members of a pool that loads code ahead its artifact, claims them only for invocations of it, and makes none for an artifact not there', async () => {
    const owner = await createPool({ minIdle: 0, maxIdle: 0 }, 'artifact-owner');
    const stored = await writeArtifact(cluster, NS, Buffer.from('the code'), { owner, maxBytes: 1024 });
    const artifact = contentArtifactName(stored.sha256);
    await createPool({ minIdle: 1, maxIdle: 1, preloadArtifact: artifact });
    const reconciler = poolReconciler();
    const [member] = await fillPool(reconciler, 1);
    const env = Object.fromEntries(member.spec.containers[0].env!.map((e) => [e.name, e.value]));
    assert.equal(env.BROWSERFN_ARTIFACT_SHA256, stored.sha256, 'the agent checks what it loads against the hash');
    assert.equal(member.metadata.annotations?.[Annotations.artifact], artifact, 'the node agent hands it over from its cache');

    const other = await createInvocation();
    await invocationReconciler().reconcile({ namespace: NS, name: other.metadata.name });
    assert.equal(await podOf(other), `${other.metadata.name}-a1`, 'other code starts cold');
    const same = await createInvocation({}, artifact);
    await invocationReconciler().reconcile({ namespace: NS, name: same.metadata.name });
    assert.equal(await podOf(same), member.metadata.name, 'its own code runs on the member');

    // Another artifact, not in the namespace: members could not load it, so none are made.
    const pool = (await cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).get(NS, 'warm'))!;
    await cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).update({ ...pool, spec: { ...pool.spec, preloadArtifact: `artifact-${'b'.repeat(64)}` } });
    await waitFor('the pool change in the cache', async () => (pools.get(NS, 'warm')?.spec.preloadArtifact?.endsWith('b') ? true : undefined));
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    const ready = (await poolStatus()).conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.reason, 'InvalidSpec');
    assert.match(ready?.message ?? '', /spec\.preloadArtifact names artifact-b+, which is not an artifact of this namespace/);
    assert.deepEqual(await idleInStore(), [], 'no member made');
  });

  it('reads the artifact a pool loads ahead again only once a minute has passed since it was found, and then sees it gone', async () => {
    const owner = await createPool({ minIdle: 0, maxIdle: 0 }, 'artifact-owner');
    const stored = await writeArtifact(cluster, NS, Buffer.from('the code'), { owner, maxBytes: 1024 });
    const artifact = contentArtifactName(stored.sha256);
    await createPool({ minIdle: 1, maxIdle: 1, preloadArtifact: artifact });
    let manifestReads = 0;
    const counted = aroundClusterCalls(cluster, (call) => {
      if (call.type === Kinds.ConfigMap && call.method === 'get' && call.args[1] === artifact) manifestReads += 1;
      return call.proceed();
    });
    const reconciler = new BrowserPoolReconciler({ cluster: counted, pools, pods, invocations, templates: TEMPLATES, memoryCapBytes: 0, clock: () => now, log });
    for (let i = 0; i < 3; i += 1) await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal(manifestReads, 1, 'found once, taken as there within the minute');
    assert.equal((await idleInStore()).length, 1, 'its member made');

    await cluster.resource(Kinds.ConfigMap).delete(NS, artifact);
    now += 60_000;
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal(manifestReads, 2, 'read again a minute later');
    const ready = (await poolStatus()).conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.reason, 'InvalidSpec', 'and seen gone');
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal(manifestReads, 3, 'one not found is read every time');
  });

  it('refills after a claim, and removes members that ended, aged out or were launched before the pool changed', async () => {
    await createPool({ minIdle: 2, maxIdle: 2, maxAgeSeconds: 600, idleSeconds: 0 });
    const reconciler = poolReconciler();
    const [a, b] = await fillPool(reconciler, 2);
    const inv = await createInvocation();
    await invocationReconciler().reconcile({ namespace: NS, name: inv.metadata.name });
    const claimed = await podOf(inv);
    assert.ok(claimed === a.metadata.name || claimed === b.metadata.name);
    await waitFor('the claim in the cache', async () => (idle().length === 1 ? true : undefined));
    // While the claimed member starts its handler, and no invocation waits, its replacement waits.
    const deferred = await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal((await idleInStore()).length, 1);
    assert.ok(deferred && deferred.requeueAfterMs! <= CLAIM_START_MS, `looks again once the handler has had its start: ${JSON.stringify(deferred)}`);
    now += CLAIM_START_MS;
    // Two reconciles before the cache shows the first one's member make one replacement, not two.
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    await waitFor('a replacement', async () => (idle().length === 2 ? true : undefined));
    assert.equal((await idleInStore()).length, 2);
    assert.equal((await poolStatus()).claimed, 1);

    // One member's browser died (its pod failed); the clock passes the other's age limit.
    const [survivor, fresh] = idle().sort((x, y) => (x.metadata.creationTimestamp ?? '').localeCompare(y.metadata.creationTimestamp ?? ''));
    await cluster.resource<PodObject>(Kinds.Pod).updateStatus({ ...fresh, status: { phase: 'Failed', reason: 'Error' } });
    await waitFor('the failure in the cache', async () => (pods.get(NS, fresh.metadata.name)?.status?.phase === 'Failed' ? true : undefined));
    now += 601_000;
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    await waitFor('both replaced', async () => {
      const names = idle().map((pod) => pod.metadata.name);
      return names.length === 2 && !names.includes(survivor.metadata.name) && !names.includes(fresh.metadata.name) ? true : undefined;
    });

    // A change of launch replaces every idle member.
    const pool = (await cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).get(NS, 'warm'))!;
    await cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).update({ ...pool, spec: { ...pool.spec, launch: { viewport: { width: 1024, height: 768 } } } });
    const before = idle().map((pod) => pod.metadata.name);
    await waitFor('the new spec in the cache', async () => (pools.get(NS, 'warm')?.spec.launch ? true : undefined));
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    await waitFor('members of the new launch', async () => {
      const current = idle();
      return current.length === 2 && current.every((pod) => !before.includes(pod.metadata.name)) ? true : undefined;
    });
  });

  it('scales with demand up to maxIdle, to zero after idleSeconds, and back when an invocation arrives', async () => {
    await createPool({ minIdle: 1, maxIdle: 3, idleSeconds: 300 });
    const reconciler = poolReconciler();
    await fillPool(reconciler, 1);
    // Five arrivals in the demand window call for more than minIdle, but no more than maxIdle.
    const burst = await Promise.all(Array.from({ length: 5 }, () => createInvocation()));
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal((await poolStatus()).desired, 3);
    await waitFor('three members', async () => (idle().length === 3 ? true : undefined));

    // Demand leaves its window: the extra members stay for the scale-down delay, then go.
    for (const inv of burst) await cluster.resource(Kinds.Invocation).delete(NS, inv.metadata.name);
    await waitFor('the burst gone from the cache', async () => (invocations.list().length === 0 ? true : undefined));
    now += DEMAND_WINDOW_MS;
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal((await poolStatus()).desired, 1);
    assert.equal(idle().length, 3, 'young members stay');
    now += SCALE_DOWN_DELAY_MS;
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    await waitFor('back to one member', async () => (idle().length === 1 ? true : undefined));

    now += 300_000;
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal((await poolStatus()).desired, 0);
    assert.equal((await poolStatus()).conditions?.find((c) => c.type === 'Ready')?.reason, 'ScaledToZero');
    await waitFor('no members', async () => (idle().length === 0 ? true : undefined));

    await createInvocation();
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.ok(((await poolStatus()).desired ?? 0) >= 1, 'an arrival wakes the pool');
    await waitFor('a member again', async () => (idle().length >= 1 ? true : undefined));
  });

  it('sizes for the arrival rate times what its members took to start, not for every arrival of the window', async () => {
    await createPool({ minIdle: 1, maxIdle: 8 });
    const reconciler = poolReconciler();
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    const [member] = await waitFor('a member', async () => (idle().length === 1 ? idle() : undefined));
    // It took 2 s from creation to ready.
    const running = await cluster.resource<PodObject>(Kinds.Pod).updateStatus({ ...member, status: { phase: 'Running' } });
    const readyAt = Date.parse(member.metadata.annotations![Annotations.memberCreatedAt]) + 2000;
    await cluster.resource<PodObject>(Kinds.Pod).update({ ...running, metadata: { ...running.metadata, annotations: { ...running.metadata.annotations, [Annotations.memberReady]: new Date(readyAt).toISOString() } } });
    // Ten arrivals in the 10 s window, each already on a pod: one per second, so 2 members are claimed while a replacement starts.
    for (let i = 0; i < 10; i += 1) {
      const inv = await createInvocation();
      await cluster.resource<InvocationObject>(Kinds.Invocation).updateStatus({ ...inv, status: { phase: 'RUNNING', podName: `elsewhere-${i}` } } as InvocationObject);
    }
    await waitFor('the arrivals on their pods in the cache', async () => (invocations.list().filter((inv) => inv.status?.podName).length === 10 ? true : undefined));
    await waitFor('the member ready in the cache', async () => (pods.get(NS, member.metadata.name)?.metadata.annotations?.[Annotations.memberReady] ? true : undefined));
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal((await poolStatus()).desired, 2);
  });

  it('never adds members past the node\'s memory cap', async () => {
    await createPool({ minIdle: 3, maxIdle: 3, resources: { requests: { memory: '512Mi' } } });
    const reconciler = poolReconciler(memoryBytes('1Gi'));
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    await waitFor('two members', async () => (idle().length === 2 ? true : undefined));
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal(idle().length, 2);
    const ready = (await poolStatus()).conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.reason, 'NoRoom');
    assert.match(ready?.message ?? '', /BROWSERFN_WARM_POOL_MEMORY_MB/);
  });

  it('makes members ahead of demand only while the node\'s CPU has some to spare, and one for each invocation that waits all the same', async () => {
    await createPool({ minIdle: 2, maxIdle: 2, idleSeconds: 0 });
    let cpuBusy = CPU_BUSY_FRACTION;
    const reconciler = poolReconciler(0, () => cpuBusy);
    const held = await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal((await idleInStore()).length, 0, 'nothing waits, so nothing is started on a busy node');
    const ready = (await poolStatus()).conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.reason, 'CpuBusy');
    assert.match(ready?.message ?? '', /0 of 2 idle member\(s\) ready; the node's CPUs are busy/);
    assert.equal(held?.requeueAfterMs, CPU_BUSY_RECHECK_MS, 'looks again once the CPU may have freed up');

    await createInvocation();
    await waitFor('the arrival in the cache', async () => (invocations.list().length === 1 ? true : undefined));
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    await waitFor('a member for the waiting invocation', async () => (idle().length === 1 ? true : undefined));
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal((await idleInStore()).length, 1, 'one member for one waiting invocation, none ahead of demand');

    cpuBusy = CPU_BUSY_FRACTION - 0.01;
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    await waitFor('the pool filled', async () => (idle().length === 2 ? true : undefined));
    assert.equal((await idleInStore()).length, 2);
  });

  it('waits longer each time between members that end before they are claimed, makes one for an invocation that waits, and forgets them only an hour after the last', async () => {
    await createPool({ minIdle: 1, maxIdle: 1, idleSeconds: 0 });
    const reconciler = poolReconciler();
    /** The pool's one idle member ends as an eviction for its disk would end it; returns what the pool does next. */
    const evictMember = async () => {
      const [member] = await waitFor('an idle member', async () => (idle().length === 1 ? idle() : undefined));
      await cluster.resource<PodObject>(Kinds.Pod).updateStatus({ ...member, status: { phase: 'Failed', reason: 'Evicted' } });
      await waitFor('the eviction in the cache', async () => (pods.get(NS, member.metadata.name)?.status?.phase === 'Failed' ? true : undefined));
      const result = await reconciler.reconcile({ namespace: NS, name: 'warm' });
      // Seen ended again before its deletion shows: not counted twice.
      await reconciler.reconcile({ namespace: NS, name: 'warm' });
      await waitFor('the member gone from the cache', async () => (pods.get(NS, member.metadata.name) && !pods.get(NS, member.metadata.name)?.metadata.deletionTimestamp ? undefined : true));
      return result;
    };
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    for (let failures = 1; failures < MEMBER_FAILURES_BEFORE_BACKOFF; failures += 1) {
      await evictMember();
      assert.equal((await poolStatus()).memberFailures?.count, failures);
      assert.equal((await idleInStore()).length, 1, `replaced at once after ${failures} failure(s)`);
    }
    const held = await evictMember();
    const status = await poolStatus();
    assert.equal(status.memberFailures?.count, MEMBER_FAILURES_BEFORE_BACKOFF);
    assert.deepEqual(await idleInStore(), [], 'the next waits');
    const ready = status.conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.reason, 'MembersFailing');
    assert.match(ready?.message ?? '', /3 members ended before they were claimed within an hour of each other \(the last: it ended \(Evicted\) before it was claimed\), so the next is made at /);
    assert.equal(held?.requeueAfterMs, MEMBER_BACKOFF_MS, 'and looks again when it may make one');

    now += MEMBER_BACKOFF_MS;
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal((await idleInStore()).length, 1, 'made once the wait is over');
    await evictMember();
    now += MEMBER_BACKOFF_MS;
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.deepEqual(await idleInStore(), [], 'the wait doubled');

    // An invocation that waits gets a member all the same; its claim does not end the run.
    const inv = await createInvocation();
    await waitFor('the arrival in the cache', async () => (invocations.list().length === 1 ? true : undefined));
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    const [member] = await waitFor('a member for the waiting invocation', async () => (idle().length === 1 ? idle() : undefined));
    await makeReady(member);
    await waitFor('the member ready in the cache', async () => (pods.get(NS, member.metadata.name)?.metadata.annotations?.[Annotations.memberReady] ? true : undefined));
    await invocationReconciler().reconcile({ namespace: NS, name: inv.metadata.name });
    assert.equal(await podOf(inv), member.metadata.name);
    await waitFor('the claim in the cache', async () => (idle().length === 0 ? true : undefined));
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal((await poolStatus()).memberFailures?.count, MEMBER_FAILURES_BEFORE_BACKOFF + 1, 'a claim does not end the run');
    assert.deepEqual(await idleInStore(), [], 'nor the wait');
    now += MEMBER_FAILURES_FORGOTTEN_MS;
    await reconciler.reconcile({ namespace: NS, name: 'warm' });
    assert.equal((await poolStatus()).memberFailures, undefined, 'forgotten an hour after the last');
    assert.equal((await idleInStore()).length, 1, 'and the pool refilled');
  });

  it('fails an invocation whose claimed member never reports with INTERNAL_ERROR at the deadline, and deletes the member', async () => {
    await createPool({ minIdle: 1, maxIdle: 1 });
    const [member] = await fillPool(poolReconciler(), 1);
    const inv = await createInvocation();
    const reconciler = invocationReconciler();
    await reconciler.reconcile({ namespace: NS, name: inv.metadata.name });
    assert.equal(await podOf(inv), member.metadata.name);
    await waitFor('the claim in the cache', async () => (pods.get(NS, member.metadata.name)?.metadata.labels?.[Labels.invocationName] ? true : undefined));
    await reconciler.reconcile({ namespace: NS, name: inv.metadata.name });
    now += (60 + POD_GRACE_SECONDS) * 1000 + 1;
    assert.deepEqual(await reconciler.reconcile({ namespace: NS, name: inv.metadata.name }), { requeueAfterMs: 0 });
    await reconciler.reconcile({ namespace: NS, name: inv.metadata.name });
    const failed = (await cluster.resource<InvocationObject>(Kinds.Invocation).get(NS, inv.metadata.name))!;
    assert.equal(failed.status?.phase, 'FAILED');
    assert.equal(failed.status?.cause?.code, 'INTERNAL_ERROR');
    assert.match(failed.status?.cause?.message ?? '', /never reported/);
    const gone = await cluster.resource<PodObject>(Kinds.Pod).get(NS, member.metadata.name);
    assert.ok(!gone || gone.metadata.deletionTimestamp, 'the member is deleted');
  });

  it('reads BROWSERFN_WARM_POOL_CODE_AHEAD: on unless turned off, and a clear error for anything else', () => {
    const codeAhead = (value?: string) =>
      loadSettings({ dataDir: '/tmp/browserfn-settings-test', env: { BROWSERFN_POD_TOKEN_SECRET: 'x', BROWSERFN_API_KEY: 'k', ...(value === undefined ? {} : { BROWSERFN_WARM_POOL_CODE_AHEAD: value }) } }).warmPool.codeAhead;
    assert.equal(codeAhead(), true);
    assert.equal(codeAhead(''), true);
    assert.equal(codeAhead('1'), true);
    assert.equal(codeAhead('0'), false);
    assert.equal(codeAhead('false'), false);
    assert.throws(() => codeAhead('sometimes'), /BROWSERFN_WARM_POOL_CODE_AHEAD must be 1 or 0, got "sometimes"/);
  });

  it('keeps a default pool in namespaces with Functions, following the settings, and leaves pools people made alone', async () => {
    const functions = new Informer<FunctionObject>(cluster, Kinds.Function, log);
    functions.start();
    await functions.waitForSync();
    try {
      const settings = { size: 2, maxSize: 4, idleSeconds: 600, maxAgeSeconds: 1800, memoryCapBytes: 0, codeAhead: true };
      const reconcile = (size: number, codeAhead = true) => new DefaultPoolReconciler({ cluster, functions, settings: { ...settings, size, codeAhead } }).reconcile({ namespace: NS, name: DEFAULT_POOL_NAME });
      const get = () => cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).get(NS, DEFAULT_POOL_NAME);
      await reconcile(2);
      assert.equal(await get(), undefined, 'no Functions, no pool');
      await cluster.resource<FunctionObject>(Kinds.Function).create(newObject<FunctionObject>(Kinds.Function, { name: 'f', namespace: NS }, { spec: { name: 'f' } }));
      await waitFor('the Function in the cache', async () => (functions.list().length ? true : undefined));
      await reconcile(2);
      assert.deepEqual((await get())?.spec, { minIdle: 2, maxIdle: 4, idleSeconds: 600, maxAgeSeconds: 1800 });

      // Members load ahead what the current versions import; all of it when a version does not say.
      const version = (n: number, runtimePackages?: RuntimePackage[], bundleConfigMap = 'artifact-x'): FunctionVersionSpec => ({ id: randomUUID(), number: n, bundleConfigMap, createdAt: new Date(now).toISOString(), ...(runtimePackages ? { runtimePackages } : {}) });
      const setVersion = async (name: string, v: FunctionVersionSpec) => {
        const fns = cluster.resource<FunctionObject>(Kinds.Function);
        const fn = (await fns.get(NS, name)) ?? (await fns.create(newObject<FunctionObject>(Kinds.Function, { name, namespace: NS }, { spec: { name } })));
        await fns.update({ ...fn, spec: { ...fn.spec, version: v } });
        await waitFor(`version ${v.number} of ${name} in the cache`, async () => (functions.get(NS, name)?.spec.version?.id === v.id ? true : undefined));
      };
      await setVersion('f', version(1, ['puppeteer-core']));
      await reconcile(2);
      assert.deepEqual((await get())?.spec.preload, ['puppeteer-core']);
      await setVersion('g', version(1, ['playwright-core', 'chrome-remote-interface']));
      await reconcile(2);
      assert.deepEqual((await get())?.spec.preload, ['chrome-remote-interface', 'playwright-core', 'puppeteer-core']);
      await setVersion('g', version(2));
      await reconcile(2);
      assert.equal((await get())?.spec.preload, undefined);
      assert.equal((await get())?.spec.preloadArtifact, undefined, 'no artifact of a hash');

      // Members load the code ahead when every current version runs the same artifact (one project published together).
      const shared = `artifact-${'c'.repeat(64)}`;
      await setVersion('f', version(2, [], shared));
      await setVersion('g', version(3, [], shared));
      await reconcile(2);
      assert.equal((await get())?.spec.preloadArtifact, shared);
      await reconcile(2, false);
      assert.equal((await get())?.spec.preloadArtifact, undefined, 'code ahead turned off: the runtime packages only');
      assert.deepEqual((await get())?.spec.preload, []);
      await reconcile(2);
      assert.equal((await get())?.spec.preloadArtifact, shared, 'and back on');
      await setVersion('g', version(4, [], `artifact-${'d'.repeat(64)}`));
      await reconcile(2);
      assert.equal((await get())?.spec.preloadArtifact, undefined, 'two artifacts: no code ahead');
      await reconcile(3);
      assert.equal((await get())?.spec.minIdle, 3);
      await reconcile(0);
      assert.equal(await get(), undefined, 'size 0 turns it off');

      const own = newObject<BrowserPoolObject>(Kinds.BrowserPool, { name: DEFAULT_POOL_NAME, namespace: NS }, { spec: { minIdle: 5, maxIdle: 5 } });
      await cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).create(own);
      await reconcile(0);
      assert.equal((await get())?.spec.minIdle, 5);
      assert.equal((await get())!.metadata.labels?.[DEFAULT_POOL_LABEL], undefined);
    } finally {
      await functions.stop();
    }
  });
});
