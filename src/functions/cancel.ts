// Cancelling an invocation (ours; the hosted API has no such call): the façade marks the
// Invocation, and the invocation reconciler ends it as FAILED with cause CANCELLED, deleting its pod
// (the node agent then stops the handler and the browser).
import { Kinds } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import { retryOnConflict } from '../cluster/retry.js';
import { watchUntil } from '../cluster/watch-until.js';
import { conflict } from '../domain/errors.js';
import { Annotations, type InvocationObject } from '../schemas/resources.js';
import type { Archive } from './archived/archive.js';
import { getInvocation, isTerminal } from './invocations.js';

/** Marks the invocation for cancelling; a finished one is a conflict. Returns it as marked. */
export async function requestCancel(cluster: ClusterPort, archive: Archive, project: string, id: string): Promise<InvocationObject> {
  const invocations = cluster.resource<InvocationObject>(Kinds.Invocation);
  return retryOnConflict(async () => {
    const { invocation } = await getInvocation(cluster, archive, project, id);
    if (isTerminal(invocation)) {
      throw conflict(`Invocation ${id} already ended (${invocation.status?.phase}); only a PENDING or RUNNING invocation can be cancelled`);
    }
    if (invocation.metadata.annotations?.[Annotations.cancelRequestedAt]) return invocation;
    const annotations = { ...invocation.metadata.annotations, [Annotations.cancelRequestedAt]: new Date().toISOString() };
    return invocations.update({ ...invocation, metadata: { ...invocation.metadata, annotations } });
  });
}

/** The invocation once it has ended, or as it is after `waitMs` (or as it was last seen, if deleted). */
export async function endedWithin(cluster: ClusterPort, inv: InvocationObject, waitMs: number): Promise<InvocationObject> {
  return (await watchUntil(cluster.resource<InvocationObject>(Kinds.Invocation), inv, isTerminal, waitMs)).latest;
}
