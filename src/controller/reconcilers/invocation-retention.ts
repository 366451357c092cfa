// Moves a finished Invocation out of the cluster store once its TTL has passed: archive (the
// Invocation, its console logs and recorded session), verify, then delete the Invocation (its
// outcome ConfigMap, pods and token Secret follow as dependents). A crash between the steps leaves
// the Invocation in the store, and the next reconcile writes the same archive again.
import { Kinds } from '../../cluster/objects.js';
import type { ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import type { InvocationObject } from '../../schemas/resources.js';
import { invocationRecords, isSessionClosing, isTerminal } from '../../functions/invocations.js';
import type { Archive } from '../../functions/archived/archive.js';
import { archiveInvocation } from '../../functions/archived/invocation-record.js';
import type { Reconciler, Request, Result } from '../runtime/controller.js';
import type { Clock } from '../runtime/clock.js';
import { finishedObjectStep } from '../policies/retention.js';
import { deleteArchived } from './archived-delete.js';

/** How often an invocation due for the archive looks again while its pod closes the session. */
const SESSION_CLOSING_RECHECK_MS = 1000;

export interface InvocationRetentionDeps {
  cluster: ClusterPort;
  archive: Archive;
  finishedTtlMs: number;
  clock: Clock;
  log: Logger;
  /** Called once per object archived and removed (a metric). */
  onArchived?: () => void;
}

export class InvocationRetentionReconciler implements Reconciler {
  constructor(private readonly deps: InvocationRetentionDeps) {}

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const { cluster, archive, log } = this.deps;
    const inv = await cluster.resource<InvocationObject>(Kinds.Invocation).get(namespace, name);
    if (!inv || inv.metadata.deletionTimestamp) return;
    const step = finishedObjectStep({ terminal: isTerminal(inv), endedAt: inv.status?.endedAt, createdAt: inv.metadata.creationTimestamp }, this.deps.clock(), this.deps.finishedTtlMs);
    if (step.kind === 'keep') return;
    if (step.kind === 'wait') return { requeueAfterMs: step.afterMs };
    // Its session's records come once the pod has closed the session (bounded by SESSION_CLOSE_GRACE_MS).
    if (await isSessionClosing(cluster, inv)) return { requeueAfterMs: SESSION_CLOSING_RECHECK_MS };
    await archiveInvocation(archive, inv, await invocationRecords(cluster, { invocation: inv }));
    await deleteArchived(cluster.resource(Kinds.Invocation), inv);
    this.deps.onArchived?.();
    log.debug({ invocation: name, namespace, store: archive.store.backend }, 'archived a finished invocation and removed it from the cluster store');
  }
}

