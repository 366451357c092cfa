import { Kinds } from '../../../cluster/objects.js';
import { defineRoute } from '../../route.js';
import { page, pageQuery, type PageQuery } from './schemas.js';
import { Labels, type InvocationObject } from '../../../schemas/resources.js';
import { invocationView } from '../../../functions/views.js';

const STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED'] as const;

interface InvocationsQuery extends PageQuery {
  status?: (typeof STATUSES)[number];
  functionId?: string;
}

export default defineRoute<unknown, InvocationsQuery, unknown>({
  method: 'get',
  path: '/v1/functions/invocations',
  operationId: 'Functions_listInvocations',
  summary:
    'browserfn only: list the invocations still in the cluster store, newest first, optionally of one Function and in one status; items leave out params and results (GET one for them)',
  tags: ['functions'],
  request: {
    query: {
      type: 'object',
      properties: {
        ...pageQuery.properties,
        status: { type: 'string', enum: [...STATUSES] },
        functionId: { type: 'string', format: 'uuid', description: 'Function ID (UUID)' },
      },
    },
  },
  responses: { 200: { description: '{data, total}' }, 400: { description: 'Invalid query' } },
  async handle(ctx, { query }, deps) {
    const labelSelector = query.functionId ? `${Labels.functionUid}=${query.functionId.toLowerCase()}` : undefined;
    const { items } = await deps.cluster.resource<InvocationObject>(Kinds.Invocation).list(ctx.state.project, labelSelector ? { labelSelector } : undefined);
    // Params and results can be large (64 KiB, 512 KiB each): a page of summaries stays small.
    const views = items
      .map((inv) => {
        const { params: _params, results: _results, ...summary } = invocationView(inv);
        return summary;
      })
      .filter((v) => !query.status || v.status === query.status)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    ctx.body = { data: page(views, query), total: views.length };
  },
});
