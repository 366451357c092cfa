import { defineRoute } from '../../route.js';
import { pageParams, type PageParams } from './page-params.js';
import { sessionRecording } from '../../../functions/recordings/recording-reads.js';

export default defineRoute<PageParams, unknown, unknown>({
  method: 'get',
  path: '/v1/sessions/:id/replays/:pageId',
  operationId: 'Sessions_getReplayPage',
  summary: "One page's HLS VOD playlist; its segment URIs are relative to it ({pageId}/segment-NNN.ts)",
  tags: ['sessions'],
  request: { params: pageParams() },
  responses: { 200: { description: 'application/vnd.apple.mpegurl' }, 404: { description: 'No such session or page' } },
  async handle(ctx, { params }, deps) {
    const recording = await sessionRecording(deps.cluster, deps.archive, ctx.state.project, params.id);
    ctx.type = 'application/vnd.apple.mpegurl';
    ctx.body = await recording.playlist(params.pageId);
  },
});
