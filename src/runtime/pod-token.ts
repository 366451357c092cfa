// Pods hold no cluster rights; they reach the control plane with a token bound to one pod object:
// its namespace, name and UID, valid until an expiry. The façade checks the signature and expiry
// without touching the store, then that the live Pod still has that UID (a token of a deleted pod
// never works for a new pod of the same name).
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface PodTokenClaims {
  namespace: string;
  name: string;
  uid: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

/** Domain separation: a MAC made for anything else with the same key never verifies as a pod token. */
const CONTEXT = 'browserfn.dev/pod-token/v2\0';
/** Far above any real token (a few hundred characters); longer input is refused before any work. */
const MAX_TOKEN_CHARS = 2048;

const mac = (secret: string, payload: string): string => createHmac('sha256', secret).update(CONTEXT + payload).digest('base64url');

export function issuePodToken(secret: string, claims: PodTokenClaims): string {
  const payload = Buffer.from(JSON.stringify({ ns: claims.namespace, name: claims.name, uid: claims.uid, exp: claims.exp })).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
}

export type PodTokenCheck = { ok: true; claims: PodTokenClaims } | { ok: false; reason: string };

/** Signature, pod name and expiry; cheap, no store access. The caller still compares `claims.uid` with the live Pod. */
export function verifyPodToken(secret: string, token: string, pod: { namespace: string; name: string }, nowMs = Date.now()): PodTokenCheck {
  const invalid: PodTokenCheck = { ok: false, reason: 'Missing or invalid pod token' };
  if (!token || token.length > MAX_TOKEN_CHARS) return invalid;
  const dot = token.indexOf('.');
  if (dot <= 0) return invalid;
  const payload = token.slice(0, dot);
  const expected = Buffer.from(mac(secret, payload));
  const given = Buffer.from(token.slice(dot + 1));
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return invalid;
  const claims = parseClaims(payload);
  if (!claims || claims.namespace !== pod.namespace || claims.name !== pod.name) return invalid;
  if (claims.exp * 1000 <= nowMs) return { ok: false, reason: 'The pod token has expired' };
  return { ok: true, claims };
}

function parseClaims(payload: string): PodTokenClaims | undefined {
  try {
    const raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { ns, name, uid, exp } = raw;
    if (typeof ns !== 'string' || typeof name !== 'string' || typeof uid !== 'string' || !uid || typeof exp !== 'number') return undefined;
    return { namespace: ns, name, uid, exp };
  } catch {
    return undefined;
  }
}
