// What a browser pod reported: `<invocation>-outcome`, owned by the Invocation — the outcome
// (phase, results, cause, times), the handler's console logs, the recorded session and its
// performance metrics, each capped.
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../../cluster/objects.js';
import { Labels, Roles, type InvocationObject } from '../../schemas/resources.js';
import type { InvocationOutcome, InvocationReport, LogEntry, SessionLogEntry } from '../../schemas/reports.js';
import { capLogs, capResults, capSessionLogs, OUTCOME_LIMITS } from '../../schemas/report-limits.js';
import { capSessionMetrics, type SessionMetrics } from '../../schemas/session-metrics.js';

const OUTCOME_KEY = 'outcome.json';
const LOGS_KEY = 'logs.json';
const SESSION_LOGS_KEY = 'session-logs.json';
const METRICS_KEY = 'metrics.json';

export const outcomeName = (invocationName: string): string => `${invocationName}-outcome`;

/** Results over their cap fail the invocation (saying so); logs keep their newest entries. */
export function outcomeConfigMap(inv: InvocationObject, report: InvocationReport): KubeObject {
  const capped = capResults(report);
  const outcome: InvocationOutcome = { phase: capped.phase, results: capped.results, cause: capped.cause, startedAt: capped.startedAt, endedAt: capped.endedAt };
  return newObject<KubeObject>(
    Kinds.ConfigMap,
    {
      name: outcomeName(inv.metadata.name),
      namespace: inv.metadata.namespace,
      labels: { [Labels.role]: Roles.invocationOutcome, [Labels.invocationName]: inv.metadata.name },
      ownerReferences: [ownerReferenceTo(inv)],
    },
    {
      immutable: true,
      data: {
        [OUTCOME_KEY]: JSON.stringify(outcome),
        [LOGS_KEY]: JSON.stringify(capLogs(capped.logs, OUTCOME_LIMITS.logsBytes)),
        [SESSION_LOGS_KEY]: JSON.stringify(capSessionLogs(capped.sessionLogs ?? [], OUTCOME_LIMITS.sessionLogsBytes)),
        ...(capped.metrics ? { [METRICS_KEY]: JSON.stringify(capSessionMetrics(capped.metrics, OUTCOME_LIMITS.sessionMetricsBytes)) } : {}),
      },
    },
  );
}

export const readOutcome = (configMap: KubeObject): InvocationOutcome => JSON.parse(configMap.data?.[OUTCOME_KEY] ?? '{}') as InvocationOutcome;

/** The handler's console output, the recorded session and its metrics; empty while the invocation runs. */
export function readOutcomeRecords(configMap: KubeObject | undefined): { logs: LogEntry[]; sessionLogs: SessionLogEntry[]; metrics?: SessionMetrics } {
  const metrics = configMap?.data?.[METRICS_KEY];
  return {
    logs: JSON.parse(configMap?.data?.[LOGS_KEY] ?? '[]') as LogEntry[],
    sessionLogs: JSON.parse(configMap?.data?.[SESSION_LOGS_KEY] ?? '[]') as SessionLogEntry[],
    ...(metrics ? { metrics: JSON.parse(metrics) as SessionMetrics } : {}),
  };
}
