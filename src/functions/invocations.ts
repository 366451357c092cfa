// Invocation rules that both the façade and the controller apply.
import type { InvocationObject } from '../schemas/resources.js';
import { Kinds } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import { notFound } from '../domain/errors.js';
import { Labels } from '../schemas/resources.js';
import type { LogEntry, SessionLogEntry } from '../schemas/reports.js';
import type { SessionMetrics } from '../schemas/session-metrics.js';
import { outcomeName, readOutcomeRecords } from './stored/invocation-outcome.js';
import { assertUuid } from './lookup.js';
import type { Archive } from './archived/archive.js';
import { readArchivedInvocation, readArchivedSession, type ArchivedInvocation } from './archived/invocation-record.js';

export const CREATED_AT_ANNOTATION = 'browserfn.dev/created-at';

export const isTerminal = (inv: InvocationObject): boolean => inv.status?.phase === 'COMPLETED' || inv.status?.phase === 'FAILED';

/** Not yet given a pod and not ended: what admission starts and the queue cap counts. */
export const isWaiting = (inv: InvocationObject): boolean => !isTerminal(inv) && !inv.status?.podName;

/** Millisecond creation time (metadata.creationTimestamp has only seconds): the queue order. */
export const queuedAt = (inv: InvocationObject): string =>
  inv.metadata.annotations?.[CREATED_AT_ANNOTATION] ?? inv.metadata.creationTimestamp ?? '';

/** An invocation found in the cluster store, or in the archive once it left the store. */
export interface FoundInvocation {
  invocation: InvocationObject;
  archived?: ArchivedInvocation;
}

export async function getInvocation(cluster: ClusterPort, archive: Archive, project: string, id: string): Promise<FoundInvocation> {
  assertUuid(id, 'invocation ID');
  const name = id.toLowerCase();
  const invocation = await cluster.resource<InvocationObject>(Kinds.Invocation).get(project, name);
  if (invocation) return { invocation };
  // Archived before it was deleted, so an invocation gone from the store is in the archive.
  const archived = await readArchivedInvocation(archive, project, name);
  if (!archived) throw notFound(`Invocation ${id} does not exist in this project`);
  return { invocation: archived.invocation, archived };
}

export async function getInvocationBySession(cluster: ClusterPort, archive: Archive, project: string, sessionId: string): Promise<FoundInvocation> {
  assertUuid(sessionId, 'session ID');
  const { items } = await cluster.resource<InvocationObject>(Kinds.Invocation).list(project, { labelSelector: `${Labels.sessionId}=${sessionId.toLowerCase()}` });
  if (items[0]) return { invocation: items[0] };
  const archived = await readArchivedSession(archive, project, sessionId.toLowerCase());
  if (!archived) throw notFound(`Session ${sessionId} does not exist in this project`);
  return { invocation: archived.invocation, archived };
}

/**
 * The handler's console output (kept once the invocation ends), the recorded CDP session and its metrics. With
 * an archive, an ended invocation whose outcome is gone was archived (and deleted) meanwhile.
 */
export async function invocationRecords(cluster: ClusterPort, archive: Archive | undefined, found: FoundInvocation): Promise<InvocationRecords> {
  const inv = found.invocation;
  if (found.archived) return recordsOf(found.archived);
  const outcome = await cluster.resource(Kinds.ConfigMap).get(inv.metadata.namespace, outcomeName(inv.metadata.name));
  const archived = !outcome && archive && isTerminal(inv) ? await readArchivedInvocation(archive, inv.metadata.namespace!, inv.metadata.name) : undefined;
  return archived ? recordsOf(archived) : readOutcomeRecords(outcome);
}

export interface InvocationRecords {
  logs: LogEntry[];
  sessionLogs: SessionLogEntry[];
  metrics?: SessionMetrics;
}

const recordsOf = (archived: ArchivedInvocation): InvocationRecords => ({
  logs: archived.logs,
  sessionLogs: archived.sessionLogs,
  ...(archived.metrics ? { metrics: archived.metrics } : {}),
});
