// The hosted service's live-view shape (SessionLiveURLs of @browserbasehq/sdk) over our relay: the
// DevTools frontend Chromium ships, served through the façade, attached to a page of the session.

export interface ChromiumTarget {
  id: string;
  type: string;
  title: string;
  url: string;
  faviconUrl?: string;
}

export interface LiveUrls {
  debuggerUrl: string;
  debuggerFullscreenUrl: string;
  wsUrl: string;
  pages: { id: string; title: string; url: string; faviconUrl: string; debuggerUrl: string; debuggerFullscreenUrl: string }[];
}

/**
 * The pages of Chromium's /json/list answer, as the pod relayed it. A pod is not trusted to keep to
 * the format: ids go into URLs, so only page ids of the shape CDP paths have are kept, and an answer
 * that is not a list throws.
 */
export function parseChromiumTargets(body: Buffer): ChromiumTarget[] {
  const list: unknown = JSON.parse(body.toString('utf8'));
  if (!Array.isArray(list)) throw new Error('not a list of targets');
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return list
    .filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null)
    .filter((entry) => entry.type === 'page' && typeof entry.id === 'string' && /^[A-Za-z0-9]{1,64}$/.test(entry.id))
    .map((entry) => ({ id: entry.id as string, type: 'page', title: text(entry.title), url: text(entry.url), faviconUrl: text(entry.faviconUrl) || undefined }));
}

/** `origin`: how the caller reached the façade (http://host:port); `token` goes into every path. */
export function liveUrls(origin: string, sessionId: string, token: string, targets: ChromiumTarget[]): LiveUrls {
  const base = `${origin}/v1/sessions/${sessionId}/live/${token}/devtools`;
  const secure = origin.startsWith('https:');
  const wsBase = base.replace(/^http/, 'ws');
  // DevTools takes the socket address without its scheme: `ws=` for ws://, `wss=` for wss://.
  const inspector = (pageId: string) => `${base}/inspector.html?${secure ? 'wss' : 'ws'}=${encodeURIComponent(`${wsBase.replace(/^wss?:\/\//, '')}/page/${pageId}`)}`;
  // The remote-frontend mode shows the page's screencast beside the panels, as remote debugging does.
  const fullscreen = (pageId: string) => `${inspector(pageId)}&remoteFrontend=true&dockSide=undocked`;
  const pages = targets
    .filter((target) => target.type === 'page')
    .map((target) => ({
      id: target.id,
      title: target.title,
      url: target.url,
      faviconUrl: target.faviconUrl ?? '',
      debuggerUrl: inspector(target.id),
      debuggerFullscreenUrl: fullscreen(target.id),
    }));
  return {
    debuggerUrl: pages[0]?.debuggerUrl ?? `${base}/inspector.html`,
    debuggerFullscreenUrl: pages[0]?.debuggerFullscreenUrl ?? `${base}/inspector.html`,
    wsUrl: `${wsBase}/browser`,
    pages,
  };
}
