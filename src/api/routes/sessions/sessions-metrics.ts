// GET /v1/sessions/{id}/metrics (browserfn's own, docs/sessions.md): the session's performance
// samples and navigation timings — reported with its outcome once it ended, asked of its pod over
// the live-view channel while it runs.
import { defineRoute, type RouteDefinition } from '../../route.js';
import { idParams } from '../functions/schemas.js';
import { getInvocationBySession, isTerminal, sessionRecords } from '../../../functions/invocations.js';
import { sessionView } from '../../../functions/views.js';
import { conflict } from '../../../domain/errors.js';
import { emptySessionMetrics } from '../../../schemas/session-metrics.js';
import type { LiveLocator } from '../../live-view/live-locator.js';

const metricsSchema = {
  type: 'object',
  required: ['sessionId', 'status', 'live', 'intervalMs', 'samples', 'navigations', 'dropped'],
  properties: {
    sessionId: { type: 'string' },
    status: { type: 'string' },
    live: { type: 'boolean', description: 'true: sampled so far (the session runs); false: as reported when it ended' },
    intervalMs: { type: 'integer', description: 'Least time between two samples of one page' },
    samples: {
      type: 'array',
      items: { type: 'object', properties: { timestamp: { type: 'integer' }, pageId: { type: 'string' }, metrics: { type: 'object', additionalProperties: { type: 'number' }, description: 'CDP Performance.getMetrics' } } },
    },
    navigations: {
      type: 'array',
      items: { type: 'object', properties: { timestamp: { type: 'integer' }, pageId: { type: 'string' }, url: { type: 'string' }, timing: { type: 'object', description: 'PerformanceNavigationTiming' } } },
    },
    dropped: { type: 'object', properties: { samples: { type: 'integer' }, navigations: { type: 'integer' } } },
  },
};

export function sessionsMetrics(locator: LiveLocator): RouteDefinition {
  return defineRoute<{ id: string }, unknown, unknown>({
    method: 'get',
    path: '/v1/sessions/:id/metrics',
    operationId: 'Sessions_getMetrics',
    summary: "browserfn: the session's CDP Performance metrics sampled over time and every page load's Navigation Timing",
    tags: ['sessions'],
    request: { params: idParams('id', 'Session ID') },
    responses: {
      200: { description: 'The samples', schema: metricsSchema },
      404: { description: 'Not in this project' },
      409: { description: 'The session runs but its metrics cannot be read yet (not started, or its browser has not connected)' },
    },
    async handle(ctx, { params }, deps) {
      const found = await getInvocationBySession(deps.cluster, deps.archive, ctx.state.project, params.id);
      const session = sessionView(found.invocation);
      const header = { sessionId: session.id, status: session.status };
      if (isTerminal(found.invocation)) {
        const { metrics } = await sessionRecords(deps.cluster, deps.archive, found);
        ctx.body = { ...header, live: false, ...(metrics ?? emptySessionMetrics(0)) };
        return;
      }
      const channel = await locator.find(ctx.state.project, session.id);
      const metrics = await channel?.metrics().catch(() => undefined);
      if (!metrics) throw conflict(`Session ${params.id} is ${session.status} and its browser has not connected yet: its metrics are served once it has, and after it ends`);
      ctx.body = { ...header, live: true, ...metrics };
    },
  });
}
