import { defineRoute } from '../../route.js';
import { idParams } from './schemas.js';
import { getFunctionById } from '../../../functions/lookup.js';
import { functionView } from '../../../functions/views.js';

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/functions/:id',
  operationId: 'Functions_get',
  summary: 'Get a Function by ID',
  tags: ['functions'],
  request: { params: idParams('id', 'Function ID') },
  responses: { 200: { description: 'The Function' }, 404: { description: 'Not in this project' } },
  async handle(ctx, { params }, deps) {
    ctx.body = functionView(await getFunctionById(deps.cluster, ctx.state.project, params.id));
  },
});
