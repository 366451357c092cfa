// Prunes the bundles of a project's old versions (beyond each Function's newest `keepVersions`)
// that nothing runs any more; the versions themselves stay listable. Keyed by project: a bundle
// may be shared by several Functions built together.
import type { ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import { deleteVersionBundle, projectVersionBundles } from '../../functions/version-bundles.js';
import type { Reconciler, Request } from '../runtime/controller.js';
import { bundlesToPrune } from '../policies/retention.js';

export interface VersionPruningDeps {
  cluster: ClusterPort;
  keepVersions: number;
  log: Logger;
  /** Called once per bundle pruned (a metric). */
  onPruned?: () => void;
}

export class VersionPruningReconciler implements Reconciler {
  constructor(private readonly deps: VersionPruningDeps) {}

  async reconcile({ name: project }: Request): Promise<void> {
    const { versions, inUse, existing } = await projectVersionBundles(this.deps.cluster, project);
    for (const bundle of bundlesToPrune(versions, inUse, existing, this.deps.keepVersions)) {
      await deleteVersionBundle(this.deps.cluster, project, bundle);
      this.deps.log.info({ project, bundle }, 'pruned the bundle of old versions');
      this.deps.onPruned?.();
    }
  }
}
