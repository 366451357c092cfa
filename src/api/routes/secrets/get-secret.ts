// GET /v1/secrets/{id} — one project secret, metadata only.
import { defineRoute } from '../../route.js';
import { getSecret } from '../../../secrets/store.js';
import { secretView } from '../../../secrets/listing.js';
import { error, secretSchema, uuidParams } from './schemas.js';

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/secrets/:id',
  operationId: 'Secrets_get',
  summary: 'Get a project secret (metadata only)',
  tags: ['secrets'],
  request: { params: uuidParams('id') },
  responses: {
    200: { description: '{id, secretKey}', schema: secretSchema },
    400: error('Invalid secret ID'),
    404: error('The secret does not exist in the project'),
  },
  async handle(ctx, { params }, deps) {
    ctx.body = secretView((await getSecret(deps.cluster, ctx.state.project, params.id)).meta);
  },
});
