import { defineRoute } from '../../route.js';
import { idParams } from '../functions/schemas.js';
import { getInvocationBySession, sessionRecords } from '../../../functions/invocations.js';

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/sessions/:id/logs',
  operationId: 'Sessions_getLogs',
  summary: "The session's recorded CDP events: console, network, page (available once it closed; a read just after its invocation ended waits for the close)",
  tags: ['sessions'],
  request: { params: idParams('id', 'Session ID') },
  responses: { 200: { description: 'Array of CDP events' }, 404: { description: 'Not in this project' } },
  async handle(ctx, { params }, deps) {
    const found = await getInvocationBySession(deps.cluster, deps.archive, ctx.state.project, params.id);
    ctx.body = (await sessionRecords(deps.cluster, deps.archive, found)).sessionLogs;
  },
});
