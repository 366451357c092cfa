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
import type { PodTemplateSettings } from '../pods/templates.js';

export interface BrowserPoolReconcilerDeps {
  cluster: ClusterPort;
  pools: Informer<BrowserPoolObject>;
  pods: Informer<PodObject>;
  invocations: Informer<InvocationObject>;
  templates: PodTemplateSettings;
  /** Memory all idle members on the node may reserve (0: no cap of ours). */
  memoryCapBytes: number;
  clock: Clock;
  log: Logger;
}

export class BrowserPoolReconciler implements Reconciler {
  constructor(private readonly deps: BrowserPoolReconcilerDeps) {}

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const { cluster, log } = this.deps;
    const pool = await cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).get(namespace, name);
    // Members go with the pool as its dependents; claimed ones belong to their invocations by then.
    if (!pool || pool.metadata.deletionTimestamp) return;
    const now = this.deps.clock();
    const members = this.deps.pods.list((pod) => pod.metadata.namespace === namespace && pod.metadata.labels?.[Labels.pool] === name);
    const plan = planPool({
      pool,
      members,
      invocations: this.deps.invocations.list((inv) => inv.metadata.namespace === namespace),
      now,
      room: roomUnderCap(this.deps.memoryCapBytes, pool, this.idleMemberBytes()),
    });
    for (const { pod, why } of plan.remove) {
      log.info({ pool: name, namespace, member: pod.metadata.name, why }, 'removing a pool member');
      await this.deleteIdle(pod);
    }
    for (let i = 0; i < plan.create; i += 1) await createPodWithToken(cluster, poolMemberPod(pool, this.deps.templates, new Date(now)), this.deps.templates.podTokenSecret);
    await this.setStatus(pool, { ...plan.status, observedGeneration: pool.metadata.generation }, plan.ready, now);
    return { requeueAfterMs: plan.recheckAfterMs };
  }

  /** Memory reserved by every idle member on the node, each by its own pool's request. */
  private idleMemberBytes(): number[] {
    const pools = new Map(this.deps.pools.list().map((pool) => [`${pool.metadata.namespace}/${pool.metadata.name}`, pool]));
    return this.deps.pods
      .list((pod) => !!pod.metadata.labels?.[Labels.pool] && isIdleMember(pod) && !pod.metadata.deletionTimestamp)
      .map((pod) => pools.get(`${pod.metadata.namespace}/${pod.metadata.labels?.[Labels.pool]}`))
      .map((pool) => (pool ? memberMemoryBytes(pool) : 0));
  }

  /** Only while it is still idle: a member claimed meanwhile belongs to its invocation. */
  private async deleteIdle(pod: PodObject): Promise<void> {
    try {
      await this.deps.cluster.resource(Kinds.Pod).delete(pod.metadata.namespace, pod.metadata.name, { uid: pod.metadata.uid, resourceVersion: pod.metadata.resourceVersion });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }

  private async setStatus(pool: BrowserPoolObject, status: BrowserPoolStatus, ready: PoolPlan['ready'], now: number): Promise<void> {
    const conditions = setCondition(pool.status?.conditions, { type: 'Ready', ...ready, observedGeneration: pool.metadata.generation }, new Date(now));
    const next: BrowserPoolStatus = { ...status, conditions };
    if (JSON.stringify(next) === JSON.stringify(pool.status)) return;
    await this.deps.cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).updateStatus({ ...pool, status: next });
  }
}
