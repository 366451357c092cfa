import { Kinds } from '../../../cluster/objects.js';
import { defineRoute } from '../../route.js';
import { page, pageQuery, type PageQuery } from './schemas.js';
import type { FunctionObject } from '../../../schemas/resources.js';
import { functionView } from '../../../functions/views.js';

export default defineRoute<unknown, PageQuery, unknown>({
  method: 'get',
  path: '/v1/functions',
  operationId: 'Functions_list',
  summary: 'List the Functions of the project, by name',
  tags: ['functions'],
  request: { query: pageQuery },
  responses: { 200: { description: '{data, total}' } },
  async handle(ctx, { query }, deps) {
    const { items } = await deps.cluster.resource<FunctionObject>(Kinds.Function).list(ctx.state.project);
    const views = items.filter((f) => !f.metadata.deletionTimestamp).map(functionView).sort((a, b) => a.name.localeCompare(b.name));
    ctx.body = { data: page(views, query), total: views.length };
  },
});
