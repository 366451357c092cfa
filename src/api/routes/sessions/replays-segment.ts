import { defineRoute } from '../../route.js';
import { pageParams, type PageParams } from './page-params.js';
import { sessionRecording } from '../../../functions/recordings/recording-reads.js';

export default defineRoute<PageParams & { segment: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/sessions/:id/replays/:pageId/:segment',
  operationId: 'Sessions_getReplaySegment',
  summary: "One MPEG-TS segment of a page's HLS playlist",
  tags: ['sessions'],
  request: { params: pageParams({ segment: { type: 'string', pattern: '^segment-[0-9]{3,6}\\.ts$' } }) },
  responses: { 200: { description: 'video/mp2t' }, 404: { description: 'No such session, page or segment' } },
  async handle(ctx, { params }, deps) {
    const recording = await sessionRecording(deps.cluster, deps.archive, ctx.state.project, params.id);
    ctx.type = 'video/mp2t';
    ctx.body = await recording.segment(params.pageId, params.segment);
  },
});
