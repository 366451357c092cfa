// The live-view channel: a browser pod's agent dials the façade (a WebSocket on
// /internal/v1/pods/{ns}/{pod}/live, pod token) while its session runs, and the façade relays viewers
// through it to the pod's Chromium, which only listens on the pod's loopback. JSON text frames,
// several relays multiplexed by `id`. Both ends keep to the same allowlist of Chromium paths.
import type { SessionMetrics } from './session-metrics.js';

export const LIVE_CHANNEL_SUFFIX = '/live';

/** Façade → pod. */
export type LiveRequest =
  | { op: 'http'; id: number; path: string }
  | { op: 'ws-open'; id: number; path: string }
  | { op: 'ws-send'; id: number; data: string }
  | { op: 'ws-close'; id: number }
  | { op: 'metrics'; id: number };

/** Pod → façade. */
export type LiveReply =
  | { op: 'http'; id: number; status: number; contentType: string; body: string /* base64 */ }
  | { op: 'ws-opened'; id: number }
  | { op: 'ws-message'; id: number; data: string }
  | { op: 'ws-closed'; id: number; reason: string }
  | { op: 'metrics'; id: number; metrics: SessionMetrics };

/** The page list, and the DevTools frontend Chromium ships (its own files only, no `..`). */
export function isRelayableHttpPath(path: string): boolean {
  if (path === '/json/list') return true;
  return /^\/devtools\/[A-Za-z0-9_\-./]*(\?[^#]*)?$/.test(path) && !path.includes('..') && !path.startsWith('/devtools/page/') && !path.startsWith('/devtools/browser');
}

/** One page's CDP endpoint, or the browser's (the pod maps `/devtools/browser` to its own ID). */
export function isRelayableWsPath(path: string): boolean {
  return /^\/devtools\/page\/[A-Za-z0-9]{1,64}$/.test(path) || path === '/devtools/browser';
}
