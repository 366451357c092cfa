// GET /v1/secrets — the project's secrets, metadata only, with the paging rules of src/secrets/list-query.ts.
import { defineRoute } from '../../route.js';
import { listQuerySchema, parseListQuery, type ListQuery } from '../../../secrets/list-query.js';
import { listSecretsPage } from '../../../secrets/listing.js';
import { error, secretsPageSchema } from './schemas.js';

export default defineRoute<unknown, ListQuery, unknown>({
  method: 'get',
  path: '/v1/secrets',
  operationId: 'Secrets_list',
  summary: 'List project secrets',
  tags: ['secrets'],
  request: { query: listQuerySchema },
  responses: {
    200: { description: 'The page of matching secrets. Metadata only.', schema: secretsPageSchema },
    400: error('Invalid query parameters, invalid cursor, or startAt later than endAt'),
  },
  async handle(ctx, { query }, deps) {
    ctx.body = await listSecretsPage(deps.cluster, ctx.state.project, 'secrets', parseListQuery(query, ctx.query.limit));
  },
});
