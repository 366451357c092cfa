import { facadeOrigin } from '../../facade-origin.js';
import { defineRoute } from '../../route.js';
import { idParams } from '../functions/schemas.js';
import { sessionRecording } from '../../../functions/recordings/recording-reads.js';
import { replaysView } from '../../../functions/recordings/recording-views.js';

export default defineRoute<{ id: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/sessions/:id/replays',
  operationId: 'Sessions_getReplays',
  summary: "The session's recorded pages, each with its HLS playlist URL and times ({pageCount, pages}); `truncated` when the size cap cut the recording",
  tags: ['sessions'],
  request: { params: idParams('id', 'Session ID') },
  responses: { 200: { description: 'The replay pages' }, 404: { description: 'Not in this project' } },
  async handle(ctx, { params }, deps) {
    const recording = await sessionRecording(deps.cluster, deps.archive, ctx.state.project, params.id);
    ctx.body = replaysView(facadeOrigin(ctx), recording.sessionId, recording.manifest);
  },
});
