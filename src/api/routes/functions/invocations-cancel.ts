import { defineRoute } from '../../route.js';
import { idParams } from './schemas.js';
import { endedWithin, requestCancel } from '../../../functions/cancel.js';
import { invocationView } from '../../../functions/views.js';
import { isTerminal } from '../../../functions/invocations.js';

/** How long the call waits for the invocation to end before answering 202 with it still running. */
const CANCEL_WAIT_MS = 10_000;

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'post',
  path: '/v1/functions/invocations/:id/cancel',
  operationId: 'Functions_cancelInvocation',
  summary: 'Cancel a PENDING or RUNNING invocation (browserfn only): it ends FAILED with cause CANCELLED, its browser and processes stopped',
  tags: ['functions'],
  request: { params: idParams('id', 'Invocation ID') },
  responses: {
    200: { description: 'The invocation, ended' },
    202: { description: 'The invocation, still ending: GET it until its status is terminal' },
    404: { description: 'Not in this project' },
    409: { description: 'The invocation has already ended' },
  },
  async handle(ctx, { params }, deps) {
    const marked = await requestCancel(deps.cluster, deps.archive, ctx.state.project, params.id);
    const inv = await endedWithin(deps.cluster, marked, CANCEL_WAIT_MS);
    ctx.status = isTerminal(inv) ? 200 : 202;
    ctx.body = invocationView(inv);
  },
});
