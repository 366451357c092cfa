// Wires warm pools into the manager (docs/pools.md): the BrowserPool controller keeps each pool's
// idle members, and the default-pool controller keeps a default pool in each namespace with
// Functions. Invocations claim members in the invocation reconciler.
import { Kinds } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import type { Logger } from '../config/logger.js';
import type { WarmPoolSettings } from '../config/settings.js';
import type { BrowserPoolObject, FunctionObject, InvocationObject } from '../schemas/resources.js';
import { Labels } from '../schemas/resources.js';
import type { PodObject } from '../schemas/pod.js';
import { Controller } from './runtime/controller.js';
import type { Manager } from './runtime/manager.js';
import type { Clock } from './runtime/clock.js';
import type { PodTemplateSettings } from './pods/templates.js';
import { BrowserPoolReconciler } from './reconcilers/browser-pool.js';
import { DEFAULT_POOL_NAME, DefaultPoolReconciler } from './reconcilers/default-pools.js';

export interface PoolControllerSettings {
  cluster: ClusterPort;
  templates: PodTemplateSettings;
  warmPool: WarmPoolSettings;
  /** The node's CPU use over the last second, where this process runs the pods (`serve`). */
  nodeCpuBusyFraction?: () => number | undefined;
  clock: Clock;
  log: Logger;
  onQueueDepth: (queue: string) => (depth: number) => void;
}

export function addPoolControllers(manager: Manager, settings: PoolControllerSettings): void {
  const { cluster, log, onQueueDepth } = settings;
  const pools = manager.informerFor<BrowserPoolObject>(Kinds.BrowserPool);
  const pods = manager.informerFor<PodObject>(Kinds.Pod);
  const invocations = manager.informerFor<InvocationObject>(Kinds.Invocation);
  const functions = manager.informerFor<FunctionObject>(Kinds.Function);

  const reconciler = new BrowserPoolReconciler({ cluster, pools, pods, invocations, templates: settings.templates, memoryCapBytes: settings.warmPool.memoryCapBytes, nodeCpuBusyFraction: settings.nodeCpuBusyFraction, clock: settings.clock, log });
  const poolsOf = (namespace: string | undefined) => pools.list((pool) => pool.metadata.namespace === namespace).map((pool) => ({ namespace, name: pool.metadata.name }));
  manager.add(
    new Controller({ name: 'browser-pool', workers: 2, onQueueDepth: onQueueDepth('browser-pool') }, reconciler, log)
      .watchFor(pools)
      // Members keep their pool label once claimed, so a claim (and a claimed member's end) reaches the pool.
      .watches(pods, (pod) => {
        const pool = pod.metadata.labels?.[Labels.pool];
        return pool ? [{ namespace: pod.metadata.namespace, name: pool }] : [];
      })
      // Arrivals are demand.
      .watches(invocations, (inv) => poolsOf(inv.metadata.namespace)),
  );
  manager.add(
    new Controller({ name: 'default-pool', workers: 1, onQueueDepth: onQueueDepth('default-pool') }, new DefaultPoolReconciler({ cluster, functions, settings: settings.warmPool }), log)
      .watches(functions, (fn) => [{ namespace: fn.metadata.namespace, name: DEFAULT_POOL_NAME }])
      .watches(pools, (pool) => (pool.metadata.name === DEFAULT_POOL_NAME ? [{ namespace: pool.metadata.namespace, name: DEFAULT_POOL_NAME }] : [])),
  );
}
