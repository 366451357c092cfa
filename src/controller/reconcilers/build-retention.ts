// Moves a finished Build out of the cluster store once its TTL has passed: archive (the Build and
// its log), verify, then delete the Build (its upload, output, pod and token Secret follow as
// dependents; its bundle belongs to the Functions by then). Builds of a hand-written Function's
// source stay while that Function exists: it reports Ready from them and builds once per source.
import { Kinds } from '../../cluster/objects.js';
import type { ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import { Labels, type BuildObject, type FunctionObject } from '../../schemas/resources.js';
import { buildLogs } from '../../functions/builds.js';
import type { Archive } from '../../functions/archived/archive.js';
import { archiveBuild } from '../../functions/archived/build-record.js';
import type { Reconciler, Request, Result } from '../runtime/controller.js';
import type { Clock } from '../runtime/clock.js';
import { finishedObjectStep } from '../policies/retention.js';
import { SOURCE_HASH_LABEL } from './function.js';
import { deleteArchived } from './archived-delete.js';

export interface BuildRetentionDeps {
  cluster: ClusterPort;
  archive: Archive;
  finishedTtlMs: number;
  clock: Clock;
  log: Logger;
  /** Called once per object archived and removed (a metric). */
  onArchived?: () => void;
}

export class BuildRetentionReconciler implements Reconciler {
  constructor(private readonly deps: BuildRetentionDeps) {}

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const { cluster, archive, log } = this.deps;
    const build = await cluster.resource<BuildObject>(Kinds.Build).get(namespace, name);
    if (!build || build.metadata.deletionTimestamp) return;
    const phase = build.status?.phase;
    const terminal = phase === 'COMPLETED' || phase === 'FAILED';
    const step = finishedObjectStep({ terminal, endedAt: build.status?.endedAt, createdAt: build.metadata.creationTimestamp }, this.deps.clock(), this.deps.finishedTtlMs);
    if (step.kind === 'keep') return;
    if (step.kind === 'wait') return { requeueAfterMs: step.afterMs };
    if (await this.builtForExistingSource(build)) return;
    await archiveBuild(archive, build, await buildLogs(cluster, undefined, { build }));
    await deleteArchived(cluster.resource(Kinds.Build), build);
    this.deps.onArchived?.();
    log.debug({ build: name, namespace, store: archive.store.backend }, 'archived a finished build and removed it from the cluster store');
  }

  /** Deleting the Function deletes these Builds too (they are its dependents). */
  private async builtForExistingSource(build: BuildObject): Promise<boolean> {
    const functionUid = build.metadata.labels?.[Labels.functionUid];
    if (!functionUid || !build.metadata.labels?.[SOURCE_HASH_LABEL]) return false;
    const { items } = await this.deps.cluster.resource<FunctionObject>(Kinds.Function).list(build.metadata.namespace);
    return items.some((fn) => fn.metadata.uid === functionUid);
  }
}
