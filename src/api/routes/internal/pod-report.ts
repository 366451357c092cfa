import { Kinds } from '../../../cluster/objects.js';
import { isAlreadyExists } from '../../../cluster/port.js';
import { defineRoute } from '../../route.js';
import { authorizePod, podParamsSchema, type PodOwner, type PodParams } from './pod-access.js';
import { podReportSchema, type BuildReport, type InvocationReport, type PodReport } from '../../../schemas/reports.js';
import { buildOutputConfigMap } from '../../../functions/stored/build-output.js';
import { outcomeConfigMap } from '../../../functions/stored/invocation-outcome.js';
import { REPORT_BODY_LIMITS } from '../../../schemas/report-limits.js';

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
    try {
      if (owner.kind === 'build' && body.kind === 'build') {
        await configMaps.create(buildOutputConfigMap(owner.build, body as BuildReport));
      } else if (owner.kind === 'invocation' && body.kind === 'invocation') {
        await configMaps.create(outcomeConfigMap(owner.invocation, body as InvocationReport));
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
