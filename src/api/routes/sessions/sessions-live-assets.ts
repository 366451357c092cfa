// GET /v1/sessions/{id}/live/{token}/devtools/…: the DevTools frontend Chromium ships, fetched from
// the session's pod over its live-view channel. The live token in the path authorises (no API key).
import { defineRoute, type RouteDefinition } from '../../route.js';
import { HttpError } from '../../http-error.js';
import { isRelayableHttpPath } from '../../../schemas/live-channel.js';
import type { LiveLocator } from '../../live-view/live-locator.js';
import { authorizeViewer, type LiveViewer } from '../../live-view/live-access.js';

/** The types the DevTools frontend's files have, by extension; anything else is served as bytes nothing renders. */
const DEVTOOLS_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  svg: 'image/svg+xml',
  png: 'image/png',
  avif: 'image/avif',
  gif: 'image/gif',
  woff2: 'font/woff2',
  wasm: 'application/wasm',
};

export function devtoolsContentType(asset: string): string {
  const extension = /\.([a-z0-9]+)$/.exec(asset.split('?')[0])?.[1] ?? '';
  return DEVTOOLS_TYPES[extension] ?? 'application/octet-stream';
}

export function sessionsLiveAssets(locator: LiveLocator): RouteDefinition {
  return defineRoute<{ id: string; token: string; asset: string }, unknown, unknown, LiveViewer>({
    method: 'get',
    path: '/v1/sessions/:id/live/:token/devtools/*asset',
    operationId: 'Sessions_liveAsset',
    summary: 'A file of the DevTools frontend of a live session (the live-view token in the path authorises)',
    tags: ['sessions'],
    auth: false,
    authorize: async (_ctx, params, deps) => authorizeViewer(locator, deps, params.id, params.token),
    request: {
      params: {
        type: 'object',
        required: ['id', 'token', 'asset'],
        properties: {
          id: { type: 'string', format: 'uuid', description: 'Session ID (UUID)' },
          token: { type: 'string', maxLength: 1024, description: 'The live-view token GET /v1/sessions/{id}/debug put in its URLs' },
          asset: { type: 'string', maxLength: 1024, description: 'A path under Chromium\'s /devtools/, e.g. inspector.html' },
        },
      },
    },
    responses: { 200: { description: 'The file' }, 401: { description: 'Bad or expired token, or one of another session' }, 404: { description: 'Not live, or no such file' } },
    async handle(ctx, { params, caller }) {
      const path = `/devtools/${params.asset}`;
      if (!isRelayableHttpPath(path)) throw new HttpError(404, `No DevTools file at ${path}`);
      const asset = await caller.channel.http(path);
      ctx.status = asset.status;
      // From the file's name, never the pod's word: a pod must not make the API origin serve HTML
      // (or script) under a name that is not the frontend's own.
      ctx.type = devtoolsContentType(params.asset);
      ctx.set('cache-control', 'no-store');
      ctx.set('x-content-type-options', 'nosniff');
      // The token is in the path: no request from the frontend tells another site.
      ctx.set('referrer-policy', 'no-referrer');
      ctx.body = asset.body;
    },
  });
}
