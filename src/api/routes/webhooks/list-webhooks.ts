// GET /v1/webhooks — the project's webhooks, newest first, paged by cursor; no secrets.
import { defineRoute } from '../../route.js';
import { pageQuerySchema, type PageQuery } from '../../../webhooks/paging.js';
import { listWebhooksPage } from '../../../webhooks/webhook-listing.js';
import { webhookView } from '../../../webhooks/views.js';
import { error, webhooksPageSchema } from './schemas.js';

export default defineRoute<unknown, PageQuery, unknown>({
  method: 'get',
  path: '/v1/webhooks',
  operationId: 'Webhooks_list',
  summary: "List the project's webhooks, newest first",
  tags: ['webhooks'],
  request: { query: pageQuerySchema },
  responses: {
    200: { description: 'A page of webhooks; signing secrets are not included', schema: webhooksPageSchema },
    400: error('Invalid limit or cursor'),
  },
  async handle(ctx, { query }, deps) {
    const page = await listWebhooksPage(deps.cluster, ctx.state.project, query, ctx.query.limit);
    ctx.body = { data: page.items.map(webhookView), limit: page.limit, nextCursor: page.nextCursor };
  },
});
