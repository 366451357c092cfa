import { Kinds } from '../../../cluster/objects.js';
import { defineRoute } from '../../route.js';
import { page, pageQuery, type PageQuery } from './schemas.js';
import type { BuildObject } from '../../../schemas/resources.js';
import { buildView } from '../../../functions/views.js';

export default defineRoute<unknown, PageQuery, unknown>({
  method: 'get',
  path: '/v1/functions/builds',
  operationId: 'Functions_listBuilds',
  summary: 'List builds, newest first',
  tags: ['functions'],
  request: { query: pageQuery },
  responses: { 200: { description: '{data, total}' } },
  async handle(ctx, { query }, deps) {
    const { items } = await deps.cluster.resource<BuildObject>(Kinds.Build).list(ctx.state.project);
    const views = items.map((b) => buildView(b)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    ctx.body = { data: page(views, query), total: views.length };
  },
});
