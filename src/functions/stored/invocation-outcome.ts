// What a browser pod reported: `<invocation>-outcome`, owned by the Invocation — the outcome
// (phase, results, cause, times) and the handler's console logs, each capped. The session's own
// records come after it, once the session has closed (session-records.ts).
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../../cluster/objects.js';
import { Labels, Roles, type InvocationObject } from '../../schemas/resources.js';
import type { InvocationOutcome, InvocationReport, LogEntry } from '../../schemas/reports.js';
import { capLogs, capResults, OUTCOME_LIMITS } from '../../schemas/report-limits.js';

const OUTCOME_KEY = 'outcome.json';
const LOGS_KEY = 'logs.json';

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
    { immutable: true, data: { [OUTCOME_KEY]: JSON.stringify(outcome), [LOGS_KEY]: JSON.stringify(capLogs(capped.logs, OUTCOME_LIMITS.logsBytes)) } },
  );
}

export const readOutcome = (configMap: KubeObject): InvocationOutcome => JSON.parse(configMap.data?.[OUTCOME_KEY] ?? '{}') as InvocationOutcome;

/** The handler's console output; empty while the invocation runs. */
export const readOutcomeLogs = (configMap: KubeObject | undefined): LogEntry[] => JSON.parse(configMap?.data?.[LOGS_KEY] ?? '[]') as LogEntry[];
