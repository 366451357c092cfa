// GET /v1/webhooks/{id}/deliveries (browserfn's own) — the webhook's deliveries, newest first, each
// with its attempts (time, duration, status code or error) and when the next one is due.
import { defineRoute } from '../../route.js';
import { listDeliveries } from '../../../webhooks/delivery-listing.js';
import { pageQuerySchema, type PageQuery } from '../../../webhooks/paging.js';
import { deliveryView } from '../../../webhooks/views.js';
import { deliveriesPageSchema, error, uuidParams } from './schemas.js';

export default defineRoute<{ id: string }, PageQuery, unknown>({
  method: 'get',
  path: '/v1/webhooks/:id/deliveries',
  operationId: 'Webhooks_listDeliveries',
  summary: "List a webhook's deliveries and their attempts, newest first (browserfn only)",
  tags: ['webhooks'],
  request: { params: uuidParams('id'), query: pageQuerySchema },
  responses: {
    200: { description: 'A page of deliveries', schema: deliveriesPageSchema },
    400: error('Invalid webhook ID, limit or cursor'),
    404: error('The webhook does not exist in the project'),
  },
  async handle(ctx, { params, query }, deps) {
    const page = await listDeliveries(deps.cluster, ctx.state.project, params.id, query, ctx.query.limit);
    ctx.body = { data: page.items.map(deliveryView), limit: page.limit, nextCursor: page.nextCursor };
  },
});
