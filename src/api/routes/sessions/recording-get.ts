import { defineRoute } from '../../route.js';
import { idParams } from '../functions/schemas.js';
import { sessionRecording } from '../../../functions/recordings/recording-reads.js';
import { recordingEventsView } from '../../../functions/recordings/recording-views.js';

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/sessions/:id/recording',
  operationId: 'Sessions_getRecording',
  summary: "The session's rrweb DOM events [{type, data, timestamp, sessionId}] (once it closed; empty when it was not recorded); a cut at the size cap ends with a custom event tagged browserfn.recording-truncated",
  tags: ['sessions'],
  request: { params: idParams('id', 'Session ID') },
  responses: { 200: { description: 'Array of rrweb events' }, 404: { description: 'Not in this project' } },
  async handle(ctx, { params }, deps) {
    const recording = await sessionRecording(deps.cluster, deps.archive, ctx.state.project, params.id);
    ctx.body = recordingEventsView(recording.sessionId, await recording.events());
  },
});
