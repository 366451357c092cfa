// PATCH /v1/webhooks/{id} — changes the endpoint, the event types (replaced), or both; the secret stays.
// @browserbasehq/sdk sends PATCH; POST to the same path does the same for clients that cannot.
import { defineRoute } from '../../route.js';
import { updateWebhook } from '../../../webhooks/store.js';
import { webhookView } from '../../../webhooks/views.js';
import { error, updateBody, uuidParams, webhookSchema } from './schemas.js';
import type { WebhookRoutesDeps } from './deps.js';

const updateBy = (method: 'patch' | 'post', { settings }: WebhookRoutesDeps) =>
  defineRoute<{ id: string }, unknown, { endpoint?: string; eventTypes?: string[] }>({
    method,
    path: '/v1/webhooks/:id',
    operationId: method === 'patch' ? 'Webhooks_update' : 'Webhooks_updateByPost',
    summary:
      method === 'patch'
        ? "Change a webhook's endpoint or event types (omitted fields stay; eventTypes replaces the subscription)"
        : 'The same as PATCH /v1/webhooks/{id}, for clients that only send POST',
    tags: ['webhooks'],
    request: { params: uuidParams('id'), body: updateBody },
    responses: {
      200: { description: 'The webhook as changed', schema: webhookSchema },
      400: error('Invalid webhook ID, endpoint or event types'),
      404: error('The webhook does not exist in the project'),
      409: error('Another webhook of the project has this endpoint'),
    },
    async handle(ctx, { params, body }, deps) {
      const record = await updateWebhook(deps.cluster, ctx.state.project, params.id, body, settings.allowPrivate);
      deps.log.info({ requestId: ctx.state.requestId, project: record.project, webhookId: record.id, endpoint: new URL(record.endpoint).origin, eventTypes: record.eventTypes }, 'webhook updated');
      ctx.body = webhookView(record);
    },
  });

export default (deps: WebhookRoutesDeps) => [updateBy('patch', deps), updateBy('post', deps)];
