import { Kinds, type KubeObject } from '../../../cluster/objects.js';
import { isAlreadyExists } from '../../../cluster/port.js';
import { defineRoute } from '../../route.js';
import { authorizePod, podParamsSchema, type PodOwner, type PodParams } from './pod-access.js';
import { podReportSchema, type PodReport } from '../../../schemas/reports.js';
import { buildOutputConfigMap } from '../../../functions/stored/build-output.js';
import { outcomeConfigMap } from '../../../functions/stored/invocation-outcome.js';
import { sessionRecordsConfigMap } from '../../../functions/stored/session-records.js';
import { REPORT_BODY_LIMITS } from '../../../schemas/report-limits.js';

export default defineRoute<PodParams, unknown, PodReport, PodOwner>({
  method: 'post',
  path: '/internal/v1/pods/:namespace/:name/report',
  operationId: 'Internal_podReport',
  summary: "A pod reports its outcome once (pod token required); repeats are accepted and ignored. A browser pod's session records follow by POST …/session-records",
  tags: ['internal'],
  auth: false,
  authorize: authorizePod,
  request: { params: podParamsSchema, body: podReportSchema, bodyLimit: (owner) => REPORT_BODY_LIMITS[owner.kind] },
  responses: { 204: { description: 'Recorded' } },
  async handle(ctx, { body, caller: owner }, deps) {
    const records = reportRecords(owner, body);
    if (!records) {
      ctx.status = 400;
      ctx.body = { statusCode: 400, error: 'Bad Request', message: `A ${owner.kind} pod cannot report a ${body.kind} outcome` };
      return;
    }
    const configMaps = deps.cluster.resource(Kinds.ConfigMap);
    for (const record of records) {
      try {
        await configMaps.create(record);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
    ctx.status = 204;
  },
});

/** What the report leaves in the store, in order; undefined when this pod cannot report it. */
function reportRecords(owner: PodOwner, body: PodReport): KubeObject[] | undefined {
  if (owner.kind === 'build' && body.kind === 'build') return [buildOutputConfigMap(owner.build, body)];
  if (owner.kind !== 'invocation' || body.kind !== 'invocation') return undefined;
  // A pod that reports everything at once: its session has closed before the invocation ends on the outcome.
  const sessionRecords = body.sessionLogs ? [sessionRecordsConfigMap(owner.invocation, { sessionLogs: body.sessionLogs, metrics: body.metrics })] : [];
  return [...sessionRecords, outcomeConfigMap(owner.invocation, body)];
}
