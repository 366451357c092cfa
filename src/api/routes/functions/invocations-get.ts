import { defineRoute } from '../../route.js';
import { idParams } from './schemas.js';
import { getInvocation } from '../../../functions/invocations.js';
import { invocationView } from '../../../functions/views.js';

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/functions/invocations/:id',
  operationId: 'Functions_getInvocation',
  summary: 'Get an invocation: status, results or cause',
  tags: ['functions'],
  request: { params: idParams('id', 'Invocation ID') },
  responses: { 200: { description: 'The invocation' }, 404: { description: 'Not in this project' } },
  async handle(ctx, { params }, deps) {
    ctx.body = invocationView((await getInvocation(deps.cluster, deps.archive, ctx.state.project, params.id)).invocation);
  },
});
