import { Kinds } from '../../../cluster/objects.js';
import { isAlreadyExists } from '../../../cluster/port.js';
import { defineRoute } from '../../route.js';
import { HttpError } from '../../http-error.js';
import { authorizePod, podParamsSchema, type PodOwner, type PodParams } from './pod-access.js';
import { sessionRecordsReportSchema, type SessionRecordsReport } from '../../../schemas/reports.js';
import { sessionRecordsConfigMap } from '../../../functions/stored/session-records.js';
import { SESSION_RECORDS_BODY_LIMIT } from '../../../schemas/report-limits.js';

export default defineRoute<PodParams, unknown, SessionRecordsReport, PodOwner>({
  method: 'post',
  path: '/internal/v1/pods/:namespace/:name/session-records',
  operationId: 'Internal_podSessionRecords',
  summary: "A browser pod reports its session's recorded CDP events and metrics once the session has closed (after its outcome and its recording); repeats are accepted and ignored",
  tags: ['internal'],
  auth: false,
  authorize: authorizePod,
  request: { params: podParamsSchema, body: sessionRecordsReportSchema, bodyLimit: () => SESSION_RECORDS_BODY_LIMIT },
  responses: { 204: { description: 'Recorded' }, 403: { description: 'Not a browser pod' } },
  async handle(ctx, { body, caller: owner }, deps) {
    if (owner.kind !== 'invocation') throw new HttpError(403, 'Only browser pods report session records');
    try {
      await deps.cluster.resource(Kinds.ConfigMap).create(sessionRecordsConfigMap(owner.invocation, body));
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    ctx.status = 204;
  },
});
