// POST /v1/functions/{id}/secrets {secretId} — attaches a project secret to a Function, from its
// next invocation on. Attaching an attached secret succeeds again (idempotent).
import { defineRoute } from '../../route.js';
import { getFunctionById } from '../../../functions/lookup.js';
import { getSecret } from '../../../secrets/store.js';
import { attachSecret } from '../../../secrets/attachments.js';
import { error, uuidParams } from './schemas.js';

export default defineRoute<{ id: string }, unknown, { secretId: string }>({
  method: 'post',
  path: '/v1/functions/:id/secrets',
  operationId: 'Functions_attachSecret',
  summary: 'Attach a secret to a Function (effective from its next invocation)',
  tags: ['functions', 'secrets'],
  request: {
    params: uuidParams('id'),
    body: {
      type: 'object',
      required: ['secretId'],
      additionalProperties: false,
      properties: { secretId: { type: 'string', format: 'uuid', description: 'ID of a secret of this project' } },
    },
  },
  responses: {
    204: { description: 'Attached (also when it already was)' },
    400: error('Invalid Function ID or secretId'),
    404: error('The Function or the secret does not exist in the project'),
  },
  async handle(ctx, { params, body }, deps) {
    const fn = await getFunctionById(deps.cluster, ctx.state.project, params.id);
    const { meta } = await getSecret(deps.cluster, ctx.state.project, body.secretId);
    await attachSecret(deps.cluster, fn, meta.id);
    deps.log.info({ requestId: ctx.state.requestId, project: ctx.state.project, functionId: fn.metadata.uid, secretId: meta.id, secretKey: meta.secretKey }, 'secret attached');
    ctx.status = 204;
  },
});
