// POST /v1/webhooks/{id}/secret — issues a new signing secret. The old one keeps signing for 24
// hours (deliveries carry both signatures), unless revokeImmediately ends it now.
import { defineRoute } from '../../route.js';
import { rotateWebhookSecret } from '../../../webhooks/store.js';
import { error, rotatedSecretSchema, uuidParams } from './schemas.js';

export default defineRoute<{ id: string }, unknown, { revokeImmediately?: boolean }>({
  method: 'post',
  path: '/v1/webhooks/:id/secret',
  operationId: 'Webhooks_rotateSecret',
  summary: "Rotate a webhook's signing secret (the old one verifies for 24 hours unless revokeImmediately)",
  tags: ['webhooks'],
  request: {
    params: uuidParams('id'),
    body: {
      type: 'object',
      additionalProperties: false,
      properties: { revokeImmediately: { type: 'boolean', description: 'Stop signing with the old secret at once instead of after 24 hours' } },
    },
  },
  responses: {
    200: { description: 'The new signing secret, shown only here', schema: rotatedSecretSchema },
    400: error('Invalid webhook ID or body'),
    404: error('The webhook does not exist in the project'),
  },
  async handle(ctx, { params, body }, deps) {
    const revokeImmediately = body.revokeImmediately === true;
    const secret = await rotateWebhookSecret(deps.cluster, ctx.state.project, params.id, revokeImmediately);
    deps.log.info({ requestId: ctx.state.requestId, project: ctx.state.project, webhookId: params.id.toLowerCase(), revokeImmediately }, 'webhook secret rotated');
    ctx.body = { secret };
  },
});
