// GET /internal/v1/live/{sessionId}/http: another API replica asks for a DevTools file or the page
// list of a session whose channel this replica holds (replica token; see live-locator.ts).
import { defineRoute, type RouteDefinition } from '../../route.js';
import { HttpError } from '../../http-error.js';
import { isRelayableHttpPath } from '../../../schemas/live-channel.js';
import type { LiveHub } from '../../live-view/live-hub.js';
import { authorizeReplica, type LiveViewer } from '../../live-view/live-access.js';
import { idParams } from '../functions/schemas.js';

export function replicaLiveHttp(hub: LiveHub): RouteDefinition {
  return defineRoute<{ sessionId: string }, { path: string }, unknown, LiveViewer>({
    method: 'get',
    path: '/internal/v1/live/:sessionId/http',
    operationId: 'Internal_replicaLiveHttp',
    summary: "Another API replica's request for a file of a live session's DevTools frontend or its page list (replica token required)",
    tags: ['internal'],
    auth: false,
    authorize: async (ctx, params, deps) => authorizeReplica(hub, deps, params.sessionId, ctx.get('authorization')),
    request: {
      params: idParams('sessionId', 'Session ID'),
      query: { type: 'object', required: ['path'], properties: { path: { type: 'string', maxLength: 1024, description: '/json/list, or a path under /devtools/' } } },
    },
    responses: { 200: { description: 'The file' }, 401: { description: 'Bad or expired replica token' }, 404: { description: 'Not live here, or no such file' } },
    async handle(ctx, { query, caller }) {
      if (!isRelayableHttpPath(query.path)) throw new HttpError(404, `No live-view file at ${query.path}`);
      const answer = await caller.channel.http(query.path);
      ctx.status = answer.status;
      ctx.type = answer.contentType;
      ctx.set('cache-control', 'no-store');
      ctx.body = answer.body;
    },
  });
}
