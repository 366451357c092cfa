import { defineRoute } from '../../route.js';
import { idParams } from './schemas.js';
import { getVersion } from '../../../functions/catalog.js';
import { versionView } from '../../../functions/views.js';

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/functions/versions/:id',
  operationId: 'Functions_getVersion',
  summary: 'Get one Function version',
  tags: ['functions'],
  request: { params: idParams('id', 'Version ID') },
  responses: { 200: { description: 'The version' }, 404: { description: 'Not in this project' } },
  async handle(ctx, { params }, deps) {
    const { version, functionUid } = await getVersion(deps.cluster, ctx.state.project, params.id);
    ctx.body = versionView({ uid: functionUid, namespace: ctx.state.project }, version);
  },
});
