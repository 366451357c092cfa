// Wires retention into the manager (docs/retention.md): finished Invocations and Builds move to
// the archive after their TTL, the archive is swept for records past retention, and old versions'
// bundles are pruned. Each is a controller of its own beside the kinds' main controllers.
import { Kinds } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import type { Logger } from '../config/logger.js';
import type { Metrics } from '../config/metrics.js';
import type { Archive } from '../functions/archived/archive.js';
import type { BuildObject, FunctionObject, InvocationObject } from '../schemas/resources.js';
import { Controller } from './runtime/controller.js';
import type { Manager } from './runtime/manager.js';
import type { Clock } from './runtime/clock.js';
import { InvocationRetentionReconciler } from './reconcilers/invocation-retention.js';
import { BuildRetentionReconciler } from './reconcilers/build-retention.js';
import { ARCHIVE_SWEEP_KEY, ArchiveSweepReconciler } from './reconcilers/archive-sweep.js';
import { VersionPruningReconciler } from './reconcilers/version-pruning.js';

export interface RetentionControllerSettings {
  cluster: ClusterPort;
  archive: Archive;
  finishedTtlMs: number;
  keepVersions: number;
  sweepIntervalMs: number;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  onQueueDepth: (queue: string) => (depth: number) => void;
}

export function addRetentionControllers(manager: Manager, settings: RetentionControllerSettings): void {
  const { cluster, archive, finishedTtlMs, clock, log, onQueueDepth } = settings;
  const counted = (action: string) => () => settings.metrics.retention.labels(action).inc();
  const invocations = manager.informerFor<InvocationObject>(Kinds.Invocation);
  const builds = manager.informerFor<BuildObject>(Kinds.Build);
  const functions = manager.informerFor<FunctionObject>(Kinds.Function);

  manager.add(
    new Controller({ name: 'invocation-retention', workers: 1, onQueueDepth: onQueueDepth('invocation-retention') }, new InvocationRetentionReconciler({ cluster, archive, finishedTtlMs, clock, log, onArchived: counted('archived-invocation') }), log).watchFor(
      invocations,
    ),
  );
  manager.add(
    new Controller({ name: 'build-retention', workers: 1, onQueueDepth: onQueueDepth('build-retention') }, new BuildRetentionReconciler({ cluster, archive, finishedTtlMs, clock, log, onArchived: counted('archived-build') }), log).watchFor(builds),
  );
  // A new version (the Function changes) is what pushes an old one out; the project is the key.
  manager.add(
    new Controller({ name: 'version-pruning', workers: 1, onQueueDepth: onQueueDepth('version-pruning') }, new VersionPruningReconciler({ cluster, keepVersions: settings.keepVersions, log, onPruned: counted('pruned-bundle') }), log).watches(
      functions,
      (fn) => (fn.metadata.namespace ? [{ name: fn.metadata.namespace }] : []),
    ),
  );
  const sweep = new Controller({ name: 'archive-sweep', workers: 1 }, new ArchiveSweepReconciler({ archive, sweepIntervalMs: settings.sweepIntervalMs, clock, log, onDeleted: counted('swept') }), log);
  // Runs once the controllers start, then every interval (the reconciler requeues itself).
  sweep.queue.add(ARCHIVE_SWEEP_KEY);
  manager.add(sweep);
}
