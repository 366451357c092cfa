// GET /v1/webhooks/{id} — one webhook, without its secret.
import { defineRoute } from '../../route.js';
import { getWebhook } from '../../../webhooks/store.js';
import { webhookView } from '../../../webhooks/views.js';
import { error, uuidParams, webhookSchema } from './schemas.js';

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/webhooks/:id',
  operationId: 'Webhooks_retrieve',
  summary: 'Get a webhook (its signing secret is not included)',
  tags: ['webhooks'],
  request: { params: uuidParams('id') },
  responses: {
    200: { description: 'The webhook', schema: webhookSchema },
    400: error('Invalid webhook ID'),
    404: error('The webhook does not exist in the project'),
  },
  async handle(ctx, { params }, deps) {
    ctx.body = webhookView((await getWebhook(deps.cluster, ctx.state.project, params.id)).record);
  },
});
