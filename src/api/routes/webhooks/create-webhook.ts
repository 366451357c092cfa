// POST /v1/webhooks — registers an endpoint for the project's events; the only answer (besides a
// rotation's) that carries the signing secret. Logs name the endpoint's origin only: its path or
// query may hold a receiver's token.
import { defineRoute } from '../../route.js';
import { createWebhook } from '../../../webhooks/store.js';
import { webhookView } from '../../../webhooks/views.js';
import { createBody, createdWebhookSchema, error } from './schemas.js';
import type { WebhookRoutesDeps } from './deps.js';

export default ({ settings }: WebhookRoutesDeps) =>
  defineRoute<unknown, unknown, { endpoint: string; eventTypes: string[] }>({
    method: 'post',
    path: '/v1/webhooks',
    operationId: 'Webhooks_create',
    summary: 'Register a webhook endpoint; the response carries its signing secret, shown only here',
    tags: ['webhooks'],
    request: { body: createBody },
    responses: {
      201: { description: 'The webhook with its signing secret', schema: createdWebhookSchema },
      400: error('An endpoint that is not an https URL, or that the address guard refuses; unknown or no event types'),
      409: error('The endpoint is already registered in this project, or the project has as many webhooks as the server allows'),
    },
    async handle(ctx, { body }, deps) {
      const { record, secret } = await createWebhook(deps.cluster, ctx.state.project, body, settings.allowPrivate, settings.maxPerProject);
      deps.log.info({ requestId: ctx.state.requestId, project: record.project, webhookId: record.id, endpoint: new URL(record.endpoint).origin, eventTypes: record.eventTypes }, 'webhook registered');
      ctx.status = 201;
      ctx.body = { ...webhookView(record), secret };
    },
  });
