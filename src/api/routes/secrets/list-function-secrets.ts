// GET /v1/functions/{id}/secrets — the public API's Functions_listSecrets: the secrets attached to a
// Function, metadata only, filtered by the secrets' creation time and paged by cursor.
import { defineRoute } from '../../route.js';
import { getFunctionById } from '../../../functions/lookup.js';
import { listQuerySchema, parseListQuery, type ListQuery } from '../../../secrets/list-query.js';
import { listSecretsPage } from '../../../secrets/listing.js';
import { error, secretsPageSchema, uuidParams } from './schemas.js';

export default defineRoute<{ id: string }, ListQuery, unknown>({
  method: 'get',
  path: '/v1/functions/:id/secrets',
  operationId: 'Functions_listSecrets',
  summary: 'List Function Secrets',
  tags: ['functions', 'secrets'],
  request: { params: uuidParams('id'), query: listQuerySchema },
  responses: {
    200: { description: 'The page of matching secrets. Metadata only.', schema: secretsPageSchema },
    400: error('Invalid Function ID, invalid query parameters, invalid cursor, or startAt later than endAt'),
    404: error('The Function does not exist in the project'),
  },
  async handle(ctx, { params, query }, deps) {
    const request = parseListQuery(query, ctx.query.limit);
    const fn = await getFunctionById(deps.cluster, ctx.state.project, params.id);
    const attached = new Set((fn.spec.secrets ?? []).map((id) => id.toLowerCase()));
    ctx.body = await listSecretsPage(deps.cluster, ctx.state.project, `functions/${fn.metadata.uid}/secrets`, request, (meta) => attached.has(meta.id));
  },
});
