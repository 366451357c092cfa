// DELETE /v1/secrets/{id} — deletes a project secret and detaches it from every Function.
import { defineRoute } from '../../route.js';
import { deleteSecret } from '../../../secrets/store.js';
import { detachFromAllFunctions } from '../../../secrets/attachments.js';
import { error, uuidParams } from './schemas.js';

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'delete',
  path: '/v1/secrets/:id',
  operationId: 'Secrets_delete',
  summary: 'Delete a project secret',
  tags: ['secrets'],
  request: { params: uuidParams('id') },
  responses: {
    204: { description: 'Deleted' },
    400: error('Invalid secret ID'),
    404: error('The secret does not exist in the project'),
  },
  async handle(ctx, { params }, deps) {
    const project = ctx.state.project;
    const meta = await deleteSecret(deps.cluster, project, params.id);
    deps.log.info({ requestId: ctx.state.requestId, project, secretId: meta.id, secretKey: meta.secretKey }, 'secret deleted');
    // Invocations already skip deleted secrets; this only keeps the Functions' lists tidy, so a
    // failure here does not undo the deletion.
    await detachFromAllFunctions(deps.cluster, project, meta.id).catch((err: unknown) =>
      deps.log.warn({ err, requestId: ctx.state.requestId, project, secretId: meta.id }, 'could not detach a deleted secret from every Function'),
    );
    ctx.status = 204;
  },
});
