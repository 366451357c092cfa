// What a build pod reported: `<build>-output`, owned by the Build — the report (without its logs)
// and the logs (capped). The built artifact itself is in the artifact store (artifact-store.ts).
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../../cluster/objects.js';
import { Labels, Roles, type BuildObject } from '../../schemas/resources.js';
import type { BuildReport, LogEntry } from '../../schemas/reports.js';
import { capLogs, OUTCOME_LIMITS } from '../../schemas/report-limits.js';

const REPORT_KEY = 'report.json';
const LOGS_KEY = 'logs.json';

export const buildOutputName = (buildName: string): string => `${buildName}-output`;

export function buildOutputConfigMap(build: BuildObject, report: BuildReport): KubeObject {
  return newObject<KubeObject>(
    Kinds.ConfigMap,
    {
      name: buildOutputName(build.metadata.name),
      namespace: build.metadata.namespace,
      labels: { [Labels.role]: Roles.buildOutput, [Labels.buildName]: build.metadata.name },
      ownerReferences: [ownerReferenceTo(build)],
    },
    {
      immutable: true,
      data: { [REPORT_KEY]: JSON.stringify({ ...report, logs: undefined }), [LOGS_KEY]: JSON.stringify(capLogs(report.logs, OUTCOME_LIMITS.logsBytes)) },
    },
  );
}

/** The report without its logs (see readBuildLogs). */
export const readBuildReport = (output: KubeObject): BuildReport => JSON.parse(output.data?.[REPORT_KEY] ?? '{}') as BuildReport;

export const readBuildLogs = (output: KubeObject | undefined): LogEntry[] => JSON.parse(output?.data?.[LOGS_KEY] ?? '[]') as LogEntry[];
