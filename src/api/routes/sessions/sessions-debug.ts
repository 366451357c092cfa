// GET /v1/sessions/{id}/debug: live-view URLs of a running session (docs/live-view.md).
import { defineRoute, type RouteDefinition } from '../../route.js';
import { idParams } from '../functions/schemas.js';
import { getInvocationBySession, isTerminal } from '../../../functions/invocations.js';
import { sessionView } from '../../../functions/views.js';
import { conflict } from '../../../domain/errors.js';
import { LIVE_CHANNEL_WAIT_MS, type LiveLocator } from '../../live-view/live-locator.js';
import { issueLiveToken } from '../../live-view/live-token.js';
import { liveUrls, parseChromiumTargets, type ChromiumTarget } from '../../live-view/live-urls.js';
import { HttpError } from '../../http-error.js';
import { facadeOrigin } from '../../facade-origin.js';

/** The longest a live-view URL works, as the hosted service allows. */
const MAX_EXPIRES_IN_SECONDS = 6 * 3600;

const liveUrlsSchema = {
  type: 'object',
  required: ['debuggerUrl', 'debuggerFullscreenUrl', 'wsUrl', 'pages'],
  properties: {
    debuggerUrl: { type: 'string' },
    debuggerFullscreenUrl: { type: 'string' },
    wsUrl: { type: 'string' },
    pages: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' }, url: { type: 'string' }, faviconUrl: { type: 'string' }, debuggerUrl: { type: 'string' }, debuggerFullscreenUrl: { type: 'string' } } } },
  },
};

export function sessionsDebug(locator: LiveLocator): RouteDefinition {
  return defineRoute<{ id: string }, { expiresIn?: number; viewOnly?: boolean }, unknown>({
    method: 'get',
    path: '/v1/sessions/:id/debug',
    operationId: 'Sessions_debug',
    summary: 'Live-view URLs of a running session: Chromium\'s DevTools on its pages, through the façade, with a short-lived token bound to the session (browserfn adds viewOnly)',
    tags: ['sessions'],
    request: {
      params: idParams('id', 'Session ID'),
      query: {
        type: 'object',
        properties: {
          expiresIn: { type: 'integer', minimum: 1, maximum: MAX_EXPIRES_IN_SECONDS, description: 'Seconds the URLs work (default and most: until the session ends, at most 6 hours)' },
          viewOnly: { type: 'boolean', default: false, description: 'browserfn: the viewer may only read the page (DOM, styles, screencast); commands that act are refused' },
        },
      },
    },
    responses: {
      200: { description: 'The live-view URLs (SessionLiveURLs)', schema: liveUrlsSchema },
      404: { description: 'Not in this project' },
      409: { description: 'The session has not started or has ended' },
      502: { description: 'The session\'s browser answered its page list wrongly' },
    },
    async handle(ctx, { params, query }, deps) {
      const { invocation } = await getInvocationBySession(deps.cluster, deps.archive, ctx.state.project, params.id);
      const session = sessionView(invocation);
      if (isTerminal(invocation)) throw conflict(`Session ${params.id} has ended (${session.status}): live view is only available while it runs; its recording and logs remain`);
      if (session.status !== 'RUNNING') throw conflict(`Session ${params.id} has not started yet (${session.status}): ask again once it runs`);
      const channel = await locator.find(ctx.state.project, session.id, LIVE_CHANNEL_WAIT_MS);
      if (!channel) throw conflict(`Session ${params.id} runs but its browser has not connected its live view (it may be ending): ask again in a moment`);
      const now = Date.now();
      const exp = Math.min(now + (query.expiresIn ?? MAX_EXPIRES_IN_SECONDS) * 1000, now + MAX_EXPIRES_IN_SECONDS * 1000, Date.parse(session.expiresAt));
      const token = issueLiveToken(deps.settings.podTokenSecret, { project: ctx.state.project, sessionId: session.id, viewOnly: query.viewOnly ?? false, exp });
      const list = await channel.http('/json/list');
      let targets: ChromiumTarget[] = [];
      try {
        if (list.status === 200) targets = parseChromiumTargets(list.body);
      } catch {
        throw new HttpError(502, `Session ${params.id}'s browser answered its page list with something that is not one: ask again in a moment`);
      }
      ctx.set('cache-control', 'no-store');
      ctx.body = liveUrls(facadeOrigin(ctx), session.id, token, targets);
    },
  });
}
