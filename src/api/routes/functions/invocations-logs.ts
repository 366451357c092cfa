import { defineRoute } from '../../route.js';
import { idParams } from './schemas.js';
import { getInvocation, invocationLogs } from '../../../functions/invocations.js';

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/functions/invocations/:id/logs',
  operationId: 'Functions_getInvocationLogs',
  summary: "The handler's console output, with timestamps and levels",
  tags: ['functions'],
  request: { params: idParams('id', 'Invocation ID') },
  responses: { 200: { description: '{logs, total}' }, 404: { description: 'Not in this project' } },
  async handle(ctx, { params }, deps) {
    const found = await getInvocation(deps.cluster, deps.archive, ctx.state.project, params.id);
    const logs = await invocationLogs(deps.cluster, deps.archive, found);
    ctx.body = { logs: logs.map(({ message, timestamp, level }) => ({ message, timestamp, level })), total: logs.length };
  },
});
