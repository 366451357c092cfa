// GET /internal/v1/live/{sessionId}/metrics: another API replica asks for the metrics of a session
// whose channel this replica holds (replica token; see live-locator.ts).
import { defineRoute, type RouteDefinition } from '../../route.js';
import type { LiveHub } from '../../live-view/live-hub.js';
import { authorizeReplica, type LiveViewer } from '../../live-view/live-access.js';
import { idParams } from '../functions/schemas.js';

export function replicaLiveMetrics(hub: LiveHub): RouteDefinition {
  return defineRoute<{ sessionId: string }, unknown, unknown, LiveViewer>({
    method: 'get',
    path: '/internal/v1/live/:sessionId/metrics',
    operationId: 'Internal_replicaLiveMetrics',
    summary: "Another API replica's request for a live session's metrics (replica token required)",
    tags: ['internal'],
    auth: false,
    authorize: async (ctx, params, deps) => authorizeReplica(hub, deps, params.sessionId, ctx.get('authorization')),
    request: { params: idParams('sessionId', 'Session ID') },
    responses: { 200: { description: 'The samples so far' }, 401: { description: 'Bad or expired replica token' }, 404: { description: 'Not live here' } },
    async handle(ctx, { caller }) {
      ctx.set('cache-control', 'no-store');
      ctx.body = await caller.channel.metrics();
    },
  });
}
