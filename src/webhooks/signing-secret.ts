// A webhook's signing secrets: a Kubernetes Secret `webhook-<id>-signing` owned by the webhook's
// ConfigMap (objects.ts), so the kube backend keeps it under the cluster's Secret protections and
// the embedded store encrypts it. It holds the current secret and, for a rotation's grace period,
// the previous one.
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../cluster/objects.js';
import { Labels, Roles } from '../schemas/resources.js';
import { webhookObjectName } from './objects.js';

export const SIGNING_SECRET_TYPE = 'browserfn.dev/webhook-signing';
const PREVIOUS_EXPIRES_AT = 'browserfn.dev/previous-secret-expires-at';
const SECRET_KEY = 'secret';
const PREVIOUS_SECRET_KEY = 'previousSecret';

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
 * A new current secret. The old one keeps signing until `previousValidUntil` (ms), or stops at once
 * when that is undefined; a secret two rotations old never signs again.
 */
export function withRotatedSecret(obj: KubeObject, secret: string, previousValidUntil: number | undefined): KubeObject {
  const annotations: Record<string, string> = { ...obj.metadata.annotations };
  const data: Record<string, string> = { [SECRET_KEY]: b64(secret) };
  if (previousValidUntil === undefined) delete annotations[PREVIOUS_EXPIRES_AT];
  else {
    annotations[PREVIOUS_EXPIRES_AT] = new Date(previousValidUntil).toISOString();
    data[PREVIOUS_SECRET_KEY] = obj.data?.[SECRET_KEY] ?? '';
  }
  return { ...obj, metadata: { ...obj.metadata, annotations }, data };
}

/** The secrets that sign a delivery made at `now`: the current one, and the previous one in its grace period. */
export function signingSecrets(obj: KubeObject, now: number): string[] {
  const current = unb64(obj.data?.[SECRET_KEY]);
  const previous = unb64(obj.data?.[PREVIOUS_SECRET_KEY]);
  const until = Date.parse(obj.metadata.annotations?.[PREVIOUS_EXPIRES_AT] ?? '');
  return [current, previous !== undefined && until > now ? previous : undefined].filter((s): s is string => !!s);
}
