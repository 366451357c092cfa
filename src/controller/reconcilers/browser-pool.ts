// BrowserPool reconciler: keeps the idle members its policy (src/controller/policies/pool.ts)
// calls for — replaces the ended, the aged and those launched before the pool changed, scales with
// demand and to zero when unused — and reports the counts in status.
import { Kinds } from '../../cluster/objects.js';
import { isConflict, isNotFound, type ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import { Labels, type BrowserPoolObject, type BrowserPoolStatus, type InvocationObject } from '../../schemas/resources.js';
import type { PodObject } from '../../schemas/pod.js';
import type { Informer } from '../runtime/informer.js';
import type { Reconciler, Request, Result } from '../runtime/controller.js';
import type { Clock } from '../runtime/clock.js';
import { setCondition } from '../conditions.js';
import { memberMemoryBytes, planPool, roomUnderCap, type PoolPlan } from '../policies/pool.js';
import { isIdleMember, poolMemberPod } from '../pods/pool-member.js';
import { createPodWithToken } from '../pods/token-secret.js';
import { readArtifactManifest } from '../../functions/stored/artifact-store.js';
import type { PodTemplateSettings } from '../pods/templates.js';

export interface BrowserPoolReconcilerDeps {
  cluster: ClusterPort;
  pools: Informer<BrowserPoolObject>;
  pods: Informer<PodObject>;
  invocations: Informer<InvocationObject>;
  templates: PodTemplateSettings;
  /** Memory all idle members on the node may reserve (0: no cap of ours). */
  memoryCapBytes: number;
  /** The share of the node's CPU time that was busy over the last second, where the pods run on this process's node (`serve`). */
  nodeCpuBusyFraction?: () => number | undefined;
  clock: Clock;
  log: Logger;
}

/** How long a member this process made (or deleted) may stay unseen (or unchanged) by the cache before it is no longer counted (or counted again). */
const UNSEEN_MEMBER_GRACE_MS = 30_000;
/**
 * How long an artifact a pool loads ahead, once found, is taken to be there without reading it
 * again: a pool reconciles on every change of its members and its namespace's invocations, and each
 * read is an API request in a cluster. Artifacts are named by their content and only go once
 * unused; a member made for one that went meanwhile cannot load it and is replaced.
 */
const ARTIFACT_FOUND_TTL_MS = 60_000;

export class BrowserPoolReconciler implements Reconciler {
  /**
   * Members made by this process that the pod cache did not show yet, by `namespace/name`: counted
   * as starting, or a reconcile running before the cache catches up makes them a second time
   * (ReplicaSet's "expectations").
   */
  private readonly unseen = new Map<string, { pod: PodObject; madeAt: number }>();
  /**
   * Members this process deleted that the cache may still show unchanged, by uid, with when: left
   * out, or a reconcile before the cache catches up counts an ended one as ending again.
   */
  private readonly deleted = new Map<string, number>();
  /** Artifacts pools load ahead, by `namespace/name`, and when they were last found. */
  private readonly artifactsFound = new Map<string, number>();

  constructor(private readonly deps: BrowserPoolReconcilerDeps) {}

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const { cluster, log } = this.deps;
    const pool = await cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).get(namespace, name);
    // Members go with the pool as its dependents; claimed ones belong to their invocations by then.
    if (!pool || pool.metadata.deletionTimestamp) return;
    const now = this.deps.clock();
    const members = this.membersOf(namespace, name, now);
    const { preloadArtifact } = pool.spec;
    const plan = planPool({
      missingArtifact: preloadArtifact !== undefined && !(await this.artifactFound(namespace ?? 'default', preloadArtifact, now)),
      pool,
      members,
      invocations: this.deps.invocations.list((inv) => inv.metadata.namespace === namespace),
      now,
      room: roomUnderCap(this.deps.memoryCapBytes, pool, this.idleMemberBytes()),
      cpuBusyFraction: this.deps.nodeCpuBusyFraction?.(),
    });
    for (const { pod, why } of plan.remove) {
      log.info({ pool: name, namespace, member: pod.metadata.name, why }, 'removing a pool member');
      if ((await this.deleteIdle(pod)) && pod.metadata.uid) this.deleted.set(pod.metadata.uid, now);
    }
    for (let i = 0; i < plan.create; i += 1) {
      const made = await createPodWithToken(cluster, poolMemberPod(pool, this.deps.templates, new Date(now)), this.deps.templates.podTokenSecret);
      this.unseen.set(`${namespace}/${made.metadata.name}`, { pod: made, madeAt: now });
    }
    await this.setStatus(pool, { ...plan.status, observedGeneration: pool.metadata.generation }, plan.ready, now);
    return { requeueAfterMs: plan.recheckAfterMs };
  }

  /** Whether the artifact is in the namespace: read again once ARTIFACT_FOUND_TTL_MS have passed since it was found; one not found is read every time. */
  private async artifactFound(namespace: string, name: string, now: number): Promise<boolean> {
    const key = `${namespace}/${name}`;
    const foundAt = this.artifactsFound.get(key);
    if (foundAt !== undefined && now - foundAt < ARTIFACT_FOUND_TTL_MS) return true;
    const found = (await readArtifactManifest(this.deps.cluster, namespace, name)) !== undefined;
    for (const [other, at] of this.artifactsFound) if (now - at >= ARTIFACT_FOUND_TTL_MS) this.artifactsFound.delete(other);
    if (found) this.artifactsFound.set(key, now);
    return found;
  }

  /** The pool's pods in the cache, plus those this process made that the cache does not show yet, less those it deleted. */
  private membersOf(namespace: string | undefined, pool: string, now: number): PodObject[] {
    for (const [uid, deletedAt] of this.deleted) if (now - deletedAt > UNSEEN_MEMBER_GRACE_MS) this.deleted.delete(uid);
    const members = this.deps.pods.list(
      (pod) => pod.metadata.namespace === namespace && pod.metadata.labels?.[Labels.pool] === pool && !(pod.metadata.uid && this.deleted.has(pod.metadata.uid) && !pod.metadata.deletionTimestamp),
    );
    for (const [key, { pod, madeAt }] of this.unseen) {
      const [ns, name] = key.split('/');
      if (this.deps.pods.get(ns, name) || now - madeAt > UNSEEN_MEMBER_GRACE_MS) this.unseen.delete(key);
      else if (ns === namespace && pod.metadata.labels?.[Labels.pool] === pool) members.push(pod);
    }
    return members;
  }

  /** Memory reserved by every idle member on the node, each by its own pool's request. */
  private idleMemberBytes(): number[] {
    const pools = new Map(this.deps.pools.list().map((pool) => [`${pool.metadata.namespace}/${pool.metadata.name}`, pool]));
    const cached = this.deps.pods.list((pod) => !!pod.metadata.labels?.[Labels.pool] && isIdleMember(pod) && !pod.metadata.deletionTimestamp);
    return [...cached, ...[...this.unseen.values()].map(({ pod }) => pod)]
      .map((pod) => pools.get(`${pod.metadata.namespace}/${pod.metadata.labels?.[Labels.pool]}`))
      .map((pool) => (pool ? memberMemoryBytes(pool) : 0));
  }

  /** Only while it is still idle: a member claimed meanwhile belongs to its invocation. Whether this deleted it. */
  private async deleteIdle(pod: PodObject): Promise<boolean> {
    try {
      await this.deps.cluster.resource(Kinds.Pod).delete(pod.metadata.namespace, pod.metadata.name, { uid: pod.metadata.uid, resourceVersion: pod.metadata.resourceVersion });
      return true;
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
      return false;
    }
  }

  private async setStatus(pool: BrowserPoolObject, status: BrowserPoolStatus, ready: PoolPlan['ready'], now: number): Promise<void> {
    const conditions = setCondition(pool.status?.conditions, { type: 'Ready', ...ready, observedGeneration: pool.metadata.generation }, new Date(now));
    const next: BrowserPoolStatus = { ...status, conditions };
    if (JSON.stringify(next) === JSON.stringify(pool.status)) return;
    await this.deps.cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).updateStatus({ ...pool, status: next });
  }
}
