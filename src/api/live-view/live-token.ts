// Live-view tokens: short-lived, bound to one session of one project, and to whether the viewer may
// only watch. Carried in the URL path (browsers set no headers on iframes and WebSockets, and the
// DevTools frontend's relative asset URLs keep a path but drop a query). HMAC with the key pod
// tokens use, under its own context, so either kind never verifies as the other. A replica token
// (another context again) lets one API replica reach the live channel another one holds; a viewer's
// token never passes for it, nor it for a viewer's.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface LiveTokenClaims {
  project: string;
  sessionId: string;
  viewOnly: boolean;
  /** Expiry, epoch milliseconds. */
  exp: number;
}

/** Who the token is for: a viewer of the session, or an API replica asking the one that holds its channel. */
export type LiveTokenAudience = 'viewer' | 'replica';

const CONTEXTS: Record<LiveTokenAudience, string> = {
  viewer: 'browserfn.dev/live-view-token/v1\0',
  replica: 'browserfn.dev/live-replica-token/v1\0',
};
const MAX_TOKEN_CHARS = 1024;

const mac = (secret: string, payload: string, audience: LiveTokenAudience): string => createHmac('sha256', secret).update(CONTEXTS[audience] + payload).digest('base64url');

export function issueLiveToken(secret: string, claims: LiveTokenClaims, audience: LiveTokenAudience = 'viewer'): string {
  const payload = Buffer.from(JSON.stringify({ p: claims.project, s: claims.sessionId, v: claims.viewOnly ? 1 : 0, e: claims.exp })).toString('base64url');
  return `${payload}.${mac(secret, payload, audience)}`;
}

export type LiveTokenCheck = { ok: true; claims: LiveTokenClaims } | { ok: false; reason: string };

/** Signature, session and expiry; the caller still checks that the session is live. */
export function verifyLiveToken(secret: string, token: string, sessionId: string, { audience = 'viewer', nowMs = Date.now() }: { audience?: LiveTokenAudience; nowMs?: number } = {}): LiveTokenCheck {
  const invalid: LiveTokenCheck = { ok: false, reason: 'Missing or invalid live-view token' };
  const dot = token.indexOf('.');
  if (!token || token.length > MAX_TOKEN_CHARS || dot <= 0) return invalid;
  const payload = token.slice(0, dot);
  const expected = Buffer.from(mac(secret, payload, audience));
  const given = Buffer.from(token.slice(dot + 1));
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return invalid;
  const claims = parseClaims(payload);
  if (!claims || claims.sessionId !== sessionId.toLowerCase()) return { ok: false, reason: 'The live-view token belongs to another session' };
  if (claims.exp <= nowMs) return { ok: false, reason: 'The live-view token has expired' };
  return { ok: true, claims };
}

function parseClaims(payload: string): LiveTokenClaims | undefined {
  try {
    const { p, s, v, e } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof p !== 'string' || typeof s !== 'string' || typeof e !== 'number') return undefined;
    return { project: p, sessionId: s, viewOnly: v === 1, exp: e };
  } catch {
    return undefined;
  }
}
