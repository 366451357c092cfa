// A webhook's signing secrets: a Kubernetes Secret `webhook-<id>-signing` owned by the webhook's
// ConfigMap (objects.ts), so the kube backend keeps it under the cluster's Secret protections and
// the embedded store encrypts it. It holds the current secret and the earlier ones still in their
// rotation's grace period, each with its own end, so rotating twice in a day cuts no receiver off early.
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../cluster/objects.js';
import { Labels, Roles } from '../schemas/resources.js';
import { webhookObjectName } from './objects.js';

export const SIGNING_SECRET_TYPE = 'browserfn.dev/webhook-signing';
const SECRET_KEY = 'secret';
/** JSON list of the earlier secrets still in their grace period: `[{ secret, until }]`, newest first. */
const EARLIER_SECRETS_KEY = 'earlierSecrets';
// The one-earlier-secret layout of the first release, still read so a rotation made by it keeps its grace.
const LEGACY_PREVIOUS_KEY = 'previousSecret';
const LEGACY_PREVIOUS_EXPIRES_AT = 'browserfn.dev/previous-secret-expires-at';
/** Rotations within one grace period keep at most this many earlier secrets (each signs every attempt). */
export const MAX_EARLIER_SECRETS = 10;

interface EarlierSecret {
  secret: string;
  /** ms since the epoch; signs until then. */
  until: number;
}

export const signingSecretName = (webhookId: string): string => `${webhookObjectName(webhookId)}-signing`;
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (value: string | undefined): string | undefined => (value ? Buffer.from(value, 'base64').toString('utf8') : undefined);

/** The Secret of a stored webhook ConfigMap (which has its uid). */
export function newSigningSecretObject(webhook: KubeObject, webhookId: string, secret: string): KubeObject {
  return newObject<KubeObject>(
    Kinds.Secret,
    { name: signingSecretName(webhookId), namespace: webhook.metadata.namespace, labels: { [Labels.role]: Roles.webhookSigning }, ownerReferences: [ownerReferenceTo(webhook)] },
    { type: SIGNING_SECRET_TYPE, data: { [SECRET_KEY]: b64(secret) } },
  );
}

/**
 * A new current secret, at `now`. Unless `revoke`, the replaced one keeps signing for `graceMs`, and
 * so do earlier ones still in their own grace; with `revoke` every earlier secret stops at once.
 */
export function withRotatedSecret(obj: KubeObject, secret: string, now: number, graceMs: number, revoke: boolean): KubeObject {
  const annotations: Record<string, string> = { ...obj.metadata.annotations };
  delete annotations[LEGACY_PREVIOUS_EXPIRES_AT];
  const data: Record<string, string> = { [SECRET_KEY]: b64(secret) };
  const replaced = unb64(obj.data?.[SECRET_KEY]);
  if (!revoke) {
    const earlier = [...(replaced ? [{ secret: replaced, until: now + graceMs }] : []), ...earlierSecrets(obj, now)].slice(0, MAX_EARLIER_SECRETS);
    if (earlier.length > 0) data[EARLIER_SECRETS_KEY] = b64(JSON.stringify(earlier));
  }
  return { ...obj, metadata: { ...obj.metadata, annotations }, data };
}

/** The secrets that sign a delivery made at `now`: the current one, then the earlier ones in their grace period. */
export function signingSecrets(obj: KubeObject, now: number): string[] {
  const current = unb64(obj.data?.[SECRET_KEY]);
  return [...(current ? [current] : []), ...earlierSecrets(obj, now).map((e) => e.secret)];
}

function earlierSecrets(obj: KubeObject, now: number): EarlierSecret[] {
  const stored = unb64(obj.data?.[EARLIER_SECRETS_KEY]);
  const legacy = unb64(obj.data?.[LEGACY_PREVIOUS_KEY]);
  const all: unknown = stored ? parseOrNothing(stored) : legacy ? [{ secret: legacy, until: Date.parse(obj.metadata.annotations?.[LEGACY_PREVIOUS_EXPIRES_AT] ?? '') }] : [];
  if (!Array.isArray(all)) return [];
  return all.filter((e): e is EarlierSecret => typeof e?.secret === 'string' && e.secret !== '' && typeof e.until === 'number' && e.until > now);
}

// A Secret edited by hand into something else signs with its current secret only.
function parseOrNothing(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
