import { defineRoute } from '../../route.js';
import { idParams, page, pageQuery, type PageQuery } from './schemas.js';
import { getFunctionById } from '../../../functions/lookup.js';
import { listVersions } from '../../../functions/catalog.js';
import { versionView } from '../../../functions/views.js';

export default defineRoute<{ id: string }, PageQuery, unknown>({
  method: 'get',
  path: '/v1/functions/:id/versions',
  operationId: 'Functions_listVersions',
  summary: 'List the versions of a Function, newest first',
  tags: ['functions'],
  request: { params: idParams('id', 'Function ID'), query: pageQuery },
  responses: { 200: { description: '{results, total}' }, 404: { description: 'Not in this project' } },
  async handle(ctx, { params, query }, deps) {
    const fn = await getFunctionById(deps.cluster, ctx.state.project, params.id);
    const versions = await listVersions(deps.cluster, fn);
    const owner = { uid: fn.metadata.uid!, namespace: fn.metadata.namespace! };
    ctx.body = { results: page(versions, query).map((v) => versionView(owner, v)), total: versions.length };
  },
});
