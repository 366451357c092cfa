// Invocation rules that both the façade and the controller apply.
import type { InvocationObject } from '../schemas/resources.js';
import { Kinds, type KubeObject } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import { notFound } from '../domain/errors.js';
import { Labels } from '../schemas/resources.js';
import type { LogEntry, SessionLogEntry } from '../schemas/reports.js';
import type { SessionMetrics } from '../schemas/session-metrics.js';
import { outcomeName, readOutcomeLogs } from './stored/invocation-outcome.js';
import { readSessionRecords, sessionRecordsName } from './stored/session-records.js';
import { watchForObject } from '../cluster/watch-until.js';
import { hasAgentExited, type PodObject } from '../schemas/pod.js';
import { SESSION_RECORDS_WAIT_MS } from '../schemas/deadlines.js';
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

/** The handler's console output, kept once the invocation ends (from the archive once it left the store). */
export async function invocationLogs(cluster: ClusterPort, archive: Archive | undefined, found: FoundInvocation): Promise<LogEntry[]> {
  if (found.archived) return found.archived.logs;
  const inv = found.invocation;
  const outcome = await cluster.resource(Kinds.ConfigMap).get(inv.metadata.namespace, outcomeName(inv.metadata.name));
  const archived = !outcome && archive && isTerminal(inv) ? await readArchivedInvocation(archive, inv.metadata.namespace!, inv.metadata.name) : undefined;
  return archived ? archived.logs : readOutcomeLogs(outcome);
}

export interface SessionRecords {
  sessionLogs: SessionLogEntry[];
  metrics?: SessionMetrics;
}

/**
 * The recorded CDP session and its metrics, once the session has closed: of an ended invocation
 * whose pod is still closing its session, after that pod reports them (or `waitMs` pass); of a
 * running one, nothing yet.
 */
export async function sessionRecords(cluster: ClusterPort, archive: Archive | undefined, found: FoundInvocation, waitMs = SESSION_RECORDS_WAIT_MS): Promise<SessionRecords> {
  if (found.archived) return sessionRecordsOf(found.archived);
  const inv = found.invocation;
  const namespace = inv.metadata.namespace!;
  const stored = await storedSessionRecords(cluster, inv, waitMs);
  if (stored || !archive || !isTerminal(inv) || (await cluster.resource(Kinds.ConfigMap).get(namespace, outcomeName(inv.metadata.name)))) return readSessionRecords(stored);
  // Neither record in the store: archived (and deleted) meanwhile, or never reported.
  const archived = await readArchivedInvocation(archive, namespace, inv.metadata.name);
  return archived ? sessionRecordsOf(archived) : readSessionRecords(undefined);
}

/** Resolves once the session has closed (its recording is then stored too), or `waitMs` have passed. */
export async function awaitSessionClosed(cluster: ClusterPort, found: FoundInvocation, waitMs = SESSION_RECORDS_WAIT_MS): Promise<void> {
  if (!found.archived && isTerminal(found.invocation)) await storedSessionRecords(cluster, found.invocation, waitMs);
}

/** The session's records as stored, waiting up to `waitMs` for the pod of an ended invocation still closing its session. */
async function storedSessionRecords(cluster: ClusterPort, inv: InvocationObject, waitMs: number): Promise<KubeObject | undefined> {
  const configMaps = cluster.resource(Kinds.ConfigMap);
  const name = sessionRecordsName(inv.metadata.name);
  // Stored already (a session long closed, the usual read): no look at the pod.
  const stored = await configMaps.get(inv.metadata.namespace, name);
  if (stored || !isTerminal(inv)) return stored;
  // Read again after the pod: records stored in between are found either way.
  return watchForObject(configMaps, inv.metadata.namespace!, name, (await isSessionClosing(cluster, inv)) ? waitMs : 0);
}

/**
 * Whether the pod of an ended invocation is still closing its session: it reported the outcome,
 * has not reported the session's records, and still runs. Any other session is closed: a pod that
 * never reported is deleted as the invocation ends.
 */
export async function isSessionClosing(cluster: ClusterPort, inv: InvocationObject): Promise<boolean> {
  const namespace = inv.metadata.namespace!;
  const podName = inv.status?.podName;
  if (!podName) return false;
  const [outcome, records, pod] = await Promise.all([
    cluster.resource(Kinds.ConfigMap).get(namespace, outcomeName(inv.metadata.name)),
    cluster.resource(Kinds.ConfigMap).get(namespace, sessionRecordsName(inv.metadata.name)),
    cluster.resource<PodObject>(Kinds.Pod).get(namespace, podName),
  ]);
  return sessionClosing({ outcomeReported: !!outcome, sessionRecorded: !!records, pod });
}

/** The rule of isSessionClosing, on what was read. */
export const sessionClosing = ({ outcomeReported, sessionRecorded, pod }: { outcomeReported: boolean; sessionRecorded: boolean; pod: PodObject | undefined }): boolean =>
  outcomeReported && !sessionRecorded && !!pod && !pod.metadata.deletionTimestamp && !hasAgentExited(pod);

/** Everything an ended invocation leaves, read as it is (the archive takes it once the session has long closed). */
export async function invocationRecords(cluster: ClusterPort, found: FoundInvocation): Promise<InvocationRecords> {
  return { logs: await invocationLogs(cluster, undefined, found), ...(await sessionRecords(cluster, undefined, found, 0)) };
}

export interface InvocationRecords extends SessionRecords {
  logs: LogEntry[];
}

const sessionRecordsOf = (archived: ArchivedInvocation): SessionRecords => ({
  sessionLogs: archived.sessionLogs,
  ...(archived.metrics ? { metrics: archived.metrics } : {}),
});
