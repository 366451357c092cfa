import { defineRoute } from '../../route.js';
import { pageParams, type PageParams } from './page-params.js';
import { sessionRecording } from '../../../functions/recordings/recording-reads.js';

export default defineRoute<PageParams, unknown, unknown>({
  method: 'get',
  path: '/v1/sessions/:id/recording/downloads/:pageId',
  operationId: 'Sessions_getRecordingDownload',
  summary: "One page's MP4 (the downloadUrl of GET …/recording/downloads)",
  tags: ['sessions'],
  request: { params: pageParams() },
  responses: { 200: { description: 'video/mp4' }, 404: { description: 'No such session or page' } },
  async handle(ctx, { params }, deps) {
    const recording = await sessionRecording(deps.cluster, deps.archive, ctx.state.project, params.id);
    ctx.type = 'video/mp4';
    ctx.set('content-disposition', `attachment; filename="${recording.sessionId}-${params.pageId}.mp4"`);
    ctx.body = await recording.mp4(params.pageId);
  },
});
