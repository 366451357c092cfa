import { defineRoute } from '../../route.js';
import { idParams } from './schemas.js';
import { getFunctionById } from '../../../functions/lookup.js';
import { invokeBodySchema, invokeFunction, type InvokeRequest } from '../../../functions/invoke.js';
import { invocationView } from '../../../functions/views.js';

export default defineRoute<{ function_id: string }, unknown, InvokeRequest>({
  method: 'post',
  path: '/v1/functions/:function_id/invoke',
  operationId: 'Functions_invoke',
  summary: 'Invoke a Function: answers 202 with the PENDING invocation',
  tags: ['functions'],
  request: { params: idParams('function_id', 'Function ID'), body: invokeBodySchema, bodyLimit: 256 * 1024 },
  responses: { 202: { description: 'The invocation' }, 400: { description: 'Bad params or sessionCreateParams' }, 404: { description: 'Not in this project' }, 429: { description: 'The project has the most invocations waiting it may have; Retry-After says when to try again' } },
  async handle(ctx, { params, body }, deps) {
    const fn = await getFunctionById(deps.cluster, ctx.state.project, params.function_id);
    const inv = await invokeFunction(deps.cluster, fn, body, {
      maxQueuedPerProject: deps.settings.projectQueue.maxQueued,
      waiting: deps.waitingInvocations,
      operatorProxy: deps.settings.browserProxy !== undefined,
    });
    ctx.status = 202;
    ctx.body = invocationView(inv);
  },
});
