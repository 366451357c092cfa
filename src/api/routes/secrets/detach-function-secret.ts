// DELETE /v1/functions/{id}/secrets/{secretId} — detaches a secret from a Function, from its next
// invocation on. Detaching a secret that is not attached (or no longer exists) succeeds (idempotent).
import { defineRoute } from '../../route.js';
import { assertUuid, getFunctionById } from '../../../functions/lookup.js';
import { detachSecret } from '../../../secrets/attachments.js';
import { error, uuidParams } from './schemas.js';

export default defineRoute<{ id: string; secretId: string }, unknown, unknown>({
  method: 'delete',
  path: '/v1/functions/:id/secrets/:secretId',
  operationId: 'Functions_detachSecret',
  summary: 'Detach a secret from a Function (effective from its next invocation)',
  tags: ['functions', 'secrets'],
  request: { params: uuidParams('id', 'secretId') },
  responses: {
    204: { description: 'Detached (also when it was not attached)' },
    400: error('Invalid Function ID or secret ID'),
    404: error('The Function does not exist in the project'),
  },
  async handle(ctx, { params }, deps) {
    const fn = await getFunctionById(deps.cluster, ctx.state.project, params.id);
    assertUuid(params.secretId, 'secret ID');
    await detachSecret(deps.cluster, fn, params.secretId);
    deps.log.info({ requestId: ctx.state.requestId, project: ctx.state.project, functionId: fn.metadata.uid, secretId: params.secretId.toLowerCase() }, 'secret detached');
    ctx.status = 204;
  },
});
