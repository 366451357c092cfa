import { defineRoute } from '../../route.js';
import { idParams } from '../functions/schemas.js';
import { getInvocationBySession } from '../../../functions/invocations.js';
import { sessionView } from '../../../functions/views.js';

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/sessions/:id',
  operationId: 'Sessions_get',
  summary: 'The browser session of an invocation',
  tags: ['sessions'],
  request: { params: idParams('id', 'Session ID') },
  responses: { 200: { description: 'The session' }, 404: { description: 'Not in this project' } },
  async handle(ctx, { params }, deps) {
    ctx.body = sessionView((await getInvocationBySession(deps.cluster, deps.archive, ctx.state.project, params.id)).invocation);
  },
});
