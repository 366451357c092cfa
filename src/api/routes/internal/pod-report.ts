import { Kinds, ownerReferenceTo } from '../../../cluster/objects.js';
import { isAlreadyExists } from '../../../cluster/port.js';
import { defineRoute } from '../../route.js';
import { authorizePod, podParamsSchema, type PodOwner, type PodParams } from './pod-access.js';
import { podReportSchema, type BuildReport, type InvocationReport, type PodReport } from '../../../schemas/reports.js';
import { Labels, Roles } from '../../../schemas/resources.js';
import { buildOutputName, outcomeName } from '../../../functions/artifacts.js';
import { capLogs, capResults, OUTCOME_LIMITS, REPORT_BODY_LIMITS } from '../../../schemas/report-limits.js';

export default defineRoute<PodParams, unknown, PodReport, PodOwner>({
  method: 'post',
  path: '/internal/v1/pods/:namespace/:name/report',
  operationId: 'Internal_podReport',
  summary: 'A pod reports its outcome once (pod token required); repeats are accepted and ignored',
  tags: ['internal'],
  auth: false,
  authorize: authorizePod,
  request: { params: podParamsSchema, body: podReportSchema, bodyLimit: (owner) => REPORT_BODY_LIMITS[owner.kind] },
  responses: { 204: { description: 'Recorded' } },
  async handle(ctx, { params, body, caller: owner }, deps) {
    const configMaps = deps.cluster.resource(Kinds.ConfigMap);
    const base = { apiVersion: 'v1', kind: 'ConfigMap', immutable: true } as const;
    try {
      if (owner.kind === 'build' && body.kind === 'build') {
        const { bundleGzipBase64, ...report } = body as BuildReport;
        await configMaps.create({
          ...base,
          metadata: {
            name: buildOutputName(owner.build.metadata.name),
            namespace: params.namespace,
            labels: { [Labels.role]: Roles.buildOutput, [Labels.buildName]: owner.build.metadata.name },
            ownerReferences: [ownerReferenceTo(owner.build)],
          },
          data: { 'report.json': JSON.stringify({ ...report, logs: undefined }), 'logs.json': JSON.stringify(capLogs(report.logs, OUTCOME_LIMITS.logsBytes)) },
          binaryData: bundleGzipBase64 ? { 'bundle.mjs.gz': bundleGzipBase64 } : {},
        });
      } else if (owner.kind === 'invocation' && body.kind === 'invocation') {
        const report = capResults(body as InvocationReport);
        await configMaps.create({
          ...base,
          metadata: {
            name: outcomeName(owner.invocation.metadata.name),
            namespace: params.namespace,
            labels: { [Labels.role]: Roles.invocationOutcome, [Labels.invocationName]: owner.invocation.metadata.name },
            ownerReferences: [ownerReferenceTo(owner.invocation)],
          },
          data: {
            'outcome.json': JSON.stringify({ phase: report.phase, results: report.results, cause: report.cause, startedAt: report.startedAt, endedAt: report.endedAt }),
            'logs.json': JSON.stringify(capLogs(report.logs, OUTCOME_LIMITS.logsBytes)),
            'session-logs.json': JSON.stringify(capLogs(report.sessionLogs ?? [], OUTCOME_LIMITS.sessionLogsBytes)),
          },
        });
      } else {
        ctx.status = 400;
        ctx.body = { statusCode: 400, error: 'Bad Request', message: `A ${owner.kind} pod cannot report a ${body.kind} outcome` };
        return;
      }
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    ctx.status = 204;
  },
});
