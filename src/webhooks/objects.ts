// A webhook is a Kubernetes Secret in the project's namespace: it holds the signing secrets, so the
// kube backend keeps it under the cluster's Secret protections and the embedded store encrypts its
// data. What the API shows (endpoint, event types, times) is in labels and annotations.
import { createHash } from 'node:crypto';
import { Kinds, newObject, type KubeObject } from '../cluster/objects.js';
import { Labels, Roles } from '../schemas/resources.js';
import type { EventType } from './event-types.js';

export const WebhookLabels = {
  id: 'browserfn.dev/webhook-id',
  /** Hash of the endpoint: one registration per endpoint and project is found by it. */
  endpointHash: 'browserfn.dev/webhook-endpoint-hash',
} as const;

const Annotations = {
  endpoint: 'browserfn.dev/webhook-endpoint',
  eventTypes: 'browserfn.dev/webhook-event-types',
  /** Milliseconds: metadata.creationTimestamp has whole seconds only. */
  createdAt: 'browserfn.dev/created-at',
  updatedAt: 'browserfn.dev/updated-at',
  previousSecretExpiresAt: 'browserfn.dev/previous-secret-expires-at',
} as const;

export const WEBHOOK_TYPE = 'browserfn.dev/webhook';
export const WEBHOOK_SELECTOR = `${Labels.role}=${Roles.webhook}`;
const SECRET_KEY = 'secret';
const PREVIOUS_SECRET_KEY = 'previousSecret';

export interface WebhookRecord {
  id: string;
  project: string;
  endpoint: string;
  eventTypes: EventType[];
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
}

export const webhookObjectName = (id: string): string => `webhook-${id}`;
export const endpointHash = (endpoint: string): string => createHash('sha256').update(endpoint, 'utf8').digest('hex').slice(0, 40);
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (value: string | undefined): string | undefined => (value ? Buffer.from(value, 'base64').toString('utf8') : undefined);

function describe(record: WebhookRecord): { labels: Record<string, string>; annotations: Record<string, string> } {
  return {
    labels: { [Labels.role]: Roles.webhook, [WebhookLabels.id]: record.id, [WebhookLabels.endpointHash]: endpointHash(record.endpoint) },
    annotations: {
      [Annotations.endpoint]: record.endpoint,
      [Annotations.eventTypes]: record.eventTypes.join(','),
      [Annotations.createdAt]: new Date(record.createdAt).toISOString(),
      [Annotations.updatedAt]: new Date(record.updatedAt).toISOString(),
    },
  };
}

export function newWebhookObject(record: WebhookRecord, secret: string): KubeObject {
  return newObject<KubeObject>(
    Kinds.Secret,
    { name: webhookObjectName(record.id), namespace: record.project, ...describe(record) },
    { type: WEBHOOK_TYPE, data: { [SECRET_KEY]: b64(secret) } },
  );
}

/** The webhook an object holds; undefined for objects being deleted or not webhooks. */
export function webhookRecord(obj: KubeObject): WebhookRecord | undefined {
  const a = obj.metadata.annotations ?? {};
  const id = obj.metadata.labels?.[WebhookLabels.id];
  const createdAt = Date.parse(a[Annotations.createdAt] ?? '');
  const updatedAt = Date.parse(a[Annotations.updatedAt] ?? '');
  const endpoint = a[Annotations.endpoint];
  if (obj.metadata.deletionTimestamp || obj.type !== WEBHOOK_TYPE || !id || !endpoint || Number.isNaN(createdAt)) return undefined;
  const eventTypes = (a[Annotations.eventTypes] ?? '').split(',').filter((t) => t !== '') as EventType[];
  return { id, project: obj.metadata.namespace!, endpoint, eventTypes, createdAt, updatedAt: Number.isNaN(updatedAt) ? createdAt : updatedAt };
}

/** The object with the record's endpoint, event types and update time (the secrets unchanged). */
export function withRecord(obj: KubeObject, record: WebhookRecord): KubeObject {
  const { labels, annotations } = describe(record);
  return { ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, ...labels }, annotations: { ...obj.metadata.annotations, ...annotations } } };
}

/**
 * A new current secret. The old one keeps signing until `previousValidUntil` (ms), or stops at once
 * when that is undefined; a secret two rotations old never signs again.
 */
export function withRotatedSecret(obj: KubeObject, secret: string, previousValidUntil: number | undefined, now: number): KubeObject {
  const annotations: Record<string, string> = { ...obj.metadata.annotations, [Annotations.updatedAt]: new Date(now).toISOString() };
  const data: Record<string, string> = { [SECRET_KEY]: b64(secret) };
  if (previousValidUntil === undefined) delete annotations[Annotations.previousSecretExpiresAt];
  else {
    annotations[Annotations.previousSecretExpiresAt] = new Date(previousValidUntil).toISOString();
    data[PREVIOUS_SECRET_KEY] = obj.data?.[SECRET_KEY] ?? '';
  }
  return { ...obj, metadata: { ...obj.metadata, annotations }, data };
}

/** The secrets that sign a delivery made at `now`: the current one, and the previous one in its grace period. */
export function signingSecrets(obj: KubeObject, now: number): string[] {
  const current = unb64(obj.data?.[SECRET_KEY]);
  const previous = unb64(obj.data?.[PREVIOUS_SECRET_KEY]);
  const until = Date.parse(obj.metadata.annotations?.[Annotations.previousSecretExpiresAt] ?? '');
  return [current, previous !== undefined && until > now ? previous : undefined].filter((s): s is string => !!s);
}
