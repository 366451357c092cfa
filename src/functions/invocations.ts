// Invocation rules that both the façade and the controller apply.
import type { InvocationObject } from '../schemas/resources.js';
import { Kinds } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import { notFound } from '../domain/errors.js';
import { Labels } from '../schemas/resources.js';
import type { LogEntry, SessionLogEntry } from '../schemas/reports.js';
import { outcomeName, readOutcomeRecords } from './stored/invocation-outcome.js';
import { assertUuid } from './lookup.js';

export const CREATED_AT_ANNOTATION = 'browserfn.dev/created-at';

export const isTerminal = (inv: InvocationObject): boolean => inv.status?.phase === 'COMPLETED' || inv.status?.phase === 'FAILED';

/** Millisecond creation time (metadata.creationTimestamp has only seconds): the queue order. */
export const queuedAt = (inv: InvocationObject): string =>
  inv.metadata.annotations?.[CREATED_AT_ANNOTATION] ?? inv.metadata.creationTimestamp ?? '';


export async function getInvocation(cluster: ClusterPort, project: string, id: string): Promise<InvocationObject> {
  assertUuid(id, 'invocation ID');
  const inv = await cluster.resource<InvocationObject>(Kinds.Invocation).get(project, id.toLowerCase());
  if (!inv) throw notFound(`Invocation ${id} does not exist in this project`);
  return inv;
}

export async function getInvocationBySession(cluster: ClusterPort, project: string, sessionId: string): Promise<InvocationObject> {
  assertUuid(sessionId, 'session ID');
  const { items } = await cluster.resource<InvocationObject>(Kinds.Invocation).list(project, { labelSelector: `${Labels.sessionId}=${sessionId.toLowerCase()}` });
  if (!items[0]) throw notFound(`Session ${sessionId} does not exist in this project`);
  return items[0];
}

/** The handler's console output (kept once the invocation ends) and the recorded CDP session. */
export async function invocationRecords(cluster: ClusterPort, inv: InvocationObject): Promise<{ logs: LogEntry[]; sessionLogs: SessionLogEntry[] }> {
  const outcome = await cluster.resource(Kinds.ConfigMap).get(inv.metadata.namespace, outcomeName(inv.metadata.name));
  return readOutcomeRecords(outcome);
}
