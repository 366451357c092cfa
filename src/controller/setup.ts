// Wires the controllers of browserfn into a manager: one controller per kind, each over
// shared informers. The same wiring serves the embedded and the Kubernetes backend.
import { Kinds } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import type { Logger } from '../config/logger.js';
import type { Metrics } from '../config/metrics.js';
import type { BrowserPoolObject, BuildObject, FunctionObject, InvocationObject } from '../schemas/resources.js';
import type { WarmPoolSettings } from '../config/settings.js';
import { addPoolControllers } from './pool-setup.js';
import type { PodObject } from '../schemas/pod.js';
import { Controller } from './runtime/controller.js';
import { Manager } from './runtime/manager.js';
import type { LeaderElectionOptions } from './runtime/leader-election.js';
import { BuildReconciler } from './reconcilers/build.js';
import { InvocationReconciler } from './reconcilers/invocation.js';
import { FunctionReconciler } from './reconcilers/function.js';
import type { PodTemplateSettings } from './pods/templates.js';
import { addRetentionControllers, type RetentionControllerSettings } from './retention-setup.js';
import { addWebhookControllers, type WebhookControllerSettings } from './webhook-setup.js';
import type { MaxRunningPerProject } from './policies/admission.js';

export interface ControllerSettings {
  cluster: ClusterPort;
  templates: PodTemplateSettings;
  maxConcurrentInvocations: number;
  /** Invocations one project may run at once (0: no cap of its own; auto: see perProjectCap). */
  maxRunningInvocationsPerProject: MaxRunningPerProject;
  maxConcurrentBuilds: number;
  metrics: Metrics;
  log: Logger;
  leaderElection?: LeaderElectionOptions;
  /** The project namespaces the controllers watch; unset: every namespace. */
  namespaces?: readonly string[];
  retention: Omit<RetentionControllerSettings, 'cluster' | 'log' | 'metrics' | 'onQueueDepth'>;
  warmPool: WarmPoolSettings;
  /** The node's CPU use over the last second, where this process runs the pods (`serve`): pools make members ahead of demand only with CPU to spare. */
  nodeCpuBusyFraction?: () => number | undefined;
  webhooks: WebhookControllerSettings;
}

export function createControllerManager(settings: ControllerSettings): Manager {
  const { cluster, metrics, log } = settings;
  const manager = new Manager(cluster, log, settings.leaderElection, settings.namespaces);
  const functions = manager.informerFor<FunctionObject>(Kinds.Function);
  const builds = manager.informerFor<BuildObject>(Kinds.Build);
  const invocations = manager.informerFor<InvocationObject>(Kinds.Invocation);
  const pods = manager.informerFor<PodObject>(Kinds.Pod);
  const configMaps = manager.informerFor(Kinds.ConfigMap);
  const pools = manager.informerFor<BrowserPoolObject>(Kinds.BrowserPool);
  const depth = (queue: string) => (n: number) => metrics.queueDepth.labels(queue).set(n);

  const buildController = new Controller(
    { name: 'build', workers: 2, onQueueDepth: depth('build') },
    new BuildReconciler({ cluster, pods, templates: settings.templates, maxConcurrentBuilds: settings.maxConcurrentBuilds, metrics, log }),
    log,
  )
    .watchFor(builds)
    .owns(pods, Kinds.Build)
    .owns(configMaps, Kinds.Build);

  const invocationController: Controller = new Controller(
    { name: 'invocation', workers: 2, onQueueDepth: depth('invocation') },
    new InvocationReconciler({
      cluster,
      invocations,
      pods,
      pools,
      templates: settings.templates,
      maxConcurrentInvocations: settings.maxConcurrentInvocations,
      maxRunningInvocationsPerProject: settings.maxRunningInvocationsPerProject,
      metrics,
      log,
      requeue: (keys) => keys.forEach((key) => invocationController.queue.add(key)),
    }),
    log,
  )
    .watchFor(invocations)
    .owns(pods, Kinds.Invocation)
    .owns(configMaps, Kinds.Invocation);

  const functionController = new Controller({ name: 'function', workers: 2, onQueueDepth: depth('function') }, new FunctionReconciler({ cluster, builds, log }), log)
    .watchFor(functions)
    .watches(builds, (build) =>
      (build.metadata.ownerReferences ?? []).filter((ref) => ref.kind === 'Function').map((ref) => ({ namespace: build.metadata.namespace, name: ref.name })),
    );

  manager.add(functionController);
  manager.add(buildController);
  manager.add(invocationController);
  addRetentionControllers(manager, { ...settings.retention, cluster, log, metrics, onQueueDepth: depth });
  addWebhookControllers(manager, { ...settings.webhooks, cluster, clock: settings.retention.clock, log, metrics, onQueueDepth: depth });
  addPoolControllers(manager, { cluster, templates: settings.templates, warmPool: settings.warmPool, nodeCpuBusyFraction: settings.nodeCpuBusyFraction, clock: settings.retention.clock, log, onQueueDepth: depth });
  return manager;
}
