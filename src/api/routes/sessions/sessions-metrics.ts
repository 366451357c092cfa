// GET /v1/sessions/{id}/metrics (browserfn's own, docs/sessions.md): the session's performance
// samples and navigation timings — reported with its outcome once it ended, asked of its pod over
// the live-view channel while it runs.
import { defineRoute, type RouteDefinition } from '../../route.js';
import type { ApiDeps } from '../../deps.js';
import { idParams } from '../functions/schemas.js';
import { getInvocationBySession, isTerminal, sessionRecords, type FoundInvocation } from '../../../functions/invocations.js';
import { sessionView } from '../../../functions/views.js';
import { conflict } from '../../../domain/errors.js';
import { emptySessionMetrics } from '../../../schemas/session-metrics.js';
import { LIVE_CHANNEL_WAIT_MS, type LiveLocator } from '../../live-view/live-locator.js';

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
      409: { description: 'The session has not started yet' },
    },
    async handle(ctx, { params }, deps) {
      let found = await getInvocationBySession(deps.cluster, deps.archive, ctx.state.project, params.id);
      if (!isTerminal(found.invocation)) {
        const session = sessionView(found.invocation);
        if (session.status !== 'RUNNING') throw conflict(`Session ${params.id} has not started yet (${session.status}): its metrics are served once it runs`);
        // A session that has just started is waited for until its pod dials in; one that ends meanwhile is read as ended.
        const channel = await locator.find(ctx.state.project, session.id, LIVE_CHANNEL_WAIT_MS);
        const metrics = await channel?.metrics().catch(() => undefined);
        if (metrics) {
          ctx.body = { sessionId: session.id, status: session.status, live: true, ...metrics };
          return;
        }
        found = await getInvocationBySession(deps.cluster, deps.archive, ctx.state.project, params.id);
        if (!isTerminal(found.invocation)) throw conflict(`Session ${params.id} runs but its browser has not connected its live view: ask again in a moment`);
      }
      ctx.body = await endedSessionMetrics(deps, found);
    },
  });
}

/** As reported when the session ended. */
async function endedSessionMetrics(deps: Pick<ApiDeps, 'cluster' | 'archive'>, found: FoundInvocation) {
  const session = sessionView(found.invocation);
  const { metrics } = await sessionRecords(deps.cluster, deps.archive, found);
  return { sessionId: session.id, status: session.status, live: false, ...(metrics ?? emptySessionMetrics(0)) };
}
