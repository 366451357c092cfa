// An archived invocation: `invocations/<project>/<id>.json` holds the Invocation as it ended, its
// console logs, its recorded session and its metrics; `sessions/<project>/<session>.json` points a session ID
// at it, so GET /v1/sessions/{id} finds it without the cluster's label index.
import type { InvocationObject } from '../../schemas/resources.js';
import type { LogEntry, SessionLogEntry } from '../../schemas/reports.js';
import type { SessionMetrics } from '../../schemas/session-metrics.js';
import { parseRecord, putVerified, withinRetention, type Archive } from './archive.js';

const FORMAT = 'browserfn.dev/archived-invocation/v1';
const POINTER_FORMAT = 'browserfn.dev/archived-session/v1';

export interface ArchivedInvocation {
  format: typeof FORMAT;
  invocation: InvocationObject;
  logs: LogEntry[];
  sessionLogs: SessionLogEntry[];
  /** Absent in records of invocations that reported none. */
  metrics?: SessionMetrics;
}

interface SessionPointer {
  format: typeof POINTER_FORMAT;
  invocationId: string;
}

export const INVOCATIONS_PREFIX = 'invocations/';
export const SESSIONS_PREFIX = 'sessions/';
export const invocationRecordKey = (project: string, id: string): string => `${INVOCATIONS_PREFIX}${project}/${id}.json`;
export const sessionPointerKey = (project: string, sessionId: string): string => `${SESSIONS_PREFIX}${project}/${sessionId}.json`;

/** Idempotent: a retry after a crash writes the same bytes under the same keys. */
export async function archiveInvocation(archive: Archive, invocation: InvocationObject, records: { logs: LogEntry[]; sessionLogs: SessionLogEntry[]; metrics?: SessionMetrics }): Promise<void> {
  const project = invocation.metadata.namespace!;
  const record: ArchivedInvocation = { format: FORMAT, invocation: invocation, ...records };
  const pointer: SessionPointer = { format: POINTER_FORMAT, invocationId: invocation.metadata.name };
  await putVerified(archive.store, [
    { key: invocationRecordKey(project, invocation.metadata.name), body: Buffer.from(JSON.stringify(record)) },
    { key: sessionPointerKey(project, invocation.spec.sessionId), body: Buffer.from(JSON.stringify(pointer)) },
  ]);
}

/** The archived invocation of this project, or undefined when there is none or its retention ended. */
export async function readArchivedInvocation(archive: Archive, project: string, id: string): Promise<ArchivedInvocation | undefined> {
  const key = invocationRecordKey(project, id);
  const record = parseRecord<ArchivedInvocation>(await archive.store.get(key), FORMAT, key);
  if (!record || record.invocation.metadata.namespace !== project) return undefined;
  return withinRetention(archive, record.invocation.status?.endedAt ?? record.invocation.metadata.creationTimestamp) ? record : undefined;
}

export async function readArchivedSession(archive: Archive, project: string, sessionId: string): Promise<ArchivedInvocation | undefined> {
  const key = sessionPointerKey(project, sessionId);
  const pointer = parseRecord<SessionPointer>(await archive.store.get(key), POINTER_FORMAT, key);
  return pointer ? readArchivedInvocation(archive, project, pointer.invocationId) : undefined;
}
