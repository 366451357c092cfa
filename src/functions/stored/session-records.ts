// What a browser pod reports once its session has closed (its recording stored before):
// `<invocation>-session-records`, owned by the Invocation — the recorded CDP events and the
// pages' performance metrics, each capped. Its presence is how the control plane knows the
// session has closed.
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../../cluster/objects.js';
import { Labels, Roles, type InvocationObject } from '../../schemas/resources.js';
import type { SessionLogEntry, SessionRecordsReport } from '../../schemas/reports.js';
import { capSessionLogs, OUTCOME_LIMITS } from '../../schemas/report-limits.js';
import { capSessionMetrics, type SessionMetrics } from '../../schemas/session-metrics.js';

const SESSION_LOGS_KEY = 'session-logs.json';
const METRICS_KEY = 'metrics.json';

export const sessionRecordsName = (invocationName: string): string => `${invocationName}-session-records`;

export function sessionRecordsConfigMap(inv: InvocationObject, records: SessionRecordsReport): KubeObject {
  return newObject<KubeObject>(
    Kinds.ConfigMap,
    {
      name: sessionRecordsName(inv.metadata.name),
      namespace: inv.metadata.namespace,
      labels: { [Labels.role]: Roles.sessionRecords, [Labels.invocationName]: inv.metadata.name },
      ownerReferences: [ownerReferenceTo(inv)],
    },
    {
      immutable: true,
      data: {
        [SESSION_LOGS_KEY]: JSON.stringify(capSessionLogs(records.sessionLogs, OUTCOME_LIMITS.sessionLogsBytes)),
        ...(records.metrics ? { [METRICS_KEY]: JSON.stringify(capSessionMetrics(records.metrics, OUTCOME_LIMITS.sessionMetricsBytes)) } : {}),
      },
    },
  );
}

/** The recorded session and its metrics; empty until the session has closed. */
export function readSessionRecords(configMap: KubeObject | undefined): { sessionLogs: SessionLogEntry[]; metrics?: SessionMetrics } {
  const metrics = configMap?.data?.[METRICS_KEY];
  return {
    sessionLogs: JSON.parse(configMap?.data?.[SESSION_LOGS_KEY] ?? '[]') as SessionLogEntry[],
    ...(metrics ? { metrics: JSON.parse(metrics) as SessionMetrics } : {}),
  };
}
