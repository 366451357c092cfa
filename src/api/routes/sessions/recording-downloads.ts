// GET and POST answer alike: every page's MP4 is made as the session ends, nothing is left to request.
import { facadeOrigin } from '../../facade-origin.js';
import { defineRoute, type RouteDefinition } from '../../route.js';
import { idParams } from '../functions/schemas.js';
import { sessionRecording } from '../../../functions/recordings/recording-reads.js';
import { downloadsView } from '../../../functions/recordings/recording-views.js';

const downloads = (method: 'get' | 'post', operationId: string): RouteDefinition =>
  defineRoute<{ id: string }, unknown, unknown>({
    method,
    path: '/v1/sessions/:id/recording/downloads',
    operationId,
    summary: "Each recorded page's MP4: {downloads: [{pageId, status, completedAt, downloadUrl}]}; downloadUrl answers with the API key",
    tags: ['sessions'],
    request: { params: idParams('id', 'Session ID') },
    responses: { 200: { description: 'The downloads' }, 404: { description: 'Not in this project' } },
    async handle(ctx, { params }, deps) {
      const recording = await sessionRecording(deps.cluster, deps.archive, ctx.state.project, params.id);
      ctx.body = downloadsView(facadeOrigin(ctx), recording.sessionId, recording.manifest);
    },
  });

export const recordingDownloadsList = downloads('get', 'Sessions_listRecordingDownloads');
export const recordingDownloadsCreate = downloads('post', 'Sessions_createRecordingDownloads');
