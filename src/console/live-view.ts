// The live view of a running session: the DevTools frontend Chromium ships, on the live page,
// framed from the façade (GET /v1/sessions/{id}/debug). Without that route it says so.
import { getJson, isMissing, q } from './api.js';
import { h, show } from './dom.js';
import type { LiveUrls } from './types.js';

export function liveView(sessionId: string, signal: AbortSignal): HTMLElement {
  const section = h('div', { class: 'live-view' }, h('p', { class: 'loading' }, 'Connecting to the live view…'));
  getJson<LiveUrls>(`/v1/sessions/${q(sessionId)}/debug`, signal).then(
    (urls) => {
      const frame = h('iframe', { src: urls.debuggerFullscreenUrl, title: 'Live view of the running browser', referrerpolicy: 'no-referrer' });
      const tabs =
        urls.pages.length > 1
          ? h(
              'ul',
              { class: 'pages', 'aria-label': 'Open pages' },
              urls.pages.map((page) => h('li', {}, h('button', { type: 'button', onclick: () => (frame.src = page.debuggerFullscreenUrl) }, page.title || page.url))),
            )
          : null;
      show(section, tabs, frame);
    },
    (err: unknown) => {
      if (signal.aborted) return;
      show(section, h('p', { class: 'empty' }, isMissing(err) ? 'Live view unavailable.' : `Live view unavailable: ${err instanceof Error ? err.message : String(err)}`));
    },
  );
  return section;
}
