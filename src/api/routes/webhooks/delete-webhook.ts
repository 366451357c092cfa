// DELETE /v1/webhooks/{id} — deletes a webhook and its deliveries; nothing more is sent to it.
import { defineRoute } from '../../route.js';
import { deleteWebhook } from '../../../webhooks/store.js';
import { error, uuidParams } from './schemas.js';

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'delete',
  path: '/v1/webhooks/:id',
  operationId: 'Webhooks_delete',
  summary: 'Delete a webhook (deliveries stop at once)',
  tags: ['webhooks'],
  request: { params: uuidParams('id') },
  responses: {
    204: { description: 'Deleted' },
    400: error('Invalid webhook ID'),
    404: error('The webhook does not exist in the project'),
  },
  async handle(ctx, { params }, deps) {
    const record = await deleteWebhook(deps.cluster, ctx.state.project, params.id);
    deps.log.info({ requestId: ctx.state.requestId, project: record.project, webhookId: record.id }, 'webhook deleted');
    ctx.status = 204;
  },
});
