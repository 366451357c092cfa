// A webhook is two objects in the project's namespace: a ConfigMap `webhook-<id>` with what the API
// shows (labels and annotations: endpoint, event types, times), which the operator lists, and a
// Secret `webhook-<id>-signing` owned by it with the signing secrets (signing-secret.ts), which the
// operator only reads by name: its Role lists no Secrets, so it can never enumerate a project's
// secrets. Deleting the ConfigMap deletes the Secret and the deliveries with it.
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
  /** JSON: when each subscribed type was added (ms), so a type added later is not sent for what happened before. */
  subscribedAt: 'browserfn.dev/webhook-subscribed-at',
} as const;

export const WEBHOOK_SELECTOR = `${Labels.role}=${Roles.webhook}`;

export interface WebhookRecord {
  id: string;
  project: string;
  endpoint: string;
  eventTypes: EventType[];
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
  /** When each subscribed type was added (ms); a webhook hears of an event only if it happened later. */
  subscribedAt: Partial<Record<EventType, number>>;
}

export const webhookObjectName = (id: string): string => `webhook-${id}`;
export const endpointHash = (endpoint: string): string => createHash('sha256').update(endpoint, 'utf8').digest('hex').slice(0, 40);

function describe(record: WebhookRecord): { labels: Record<string, string>; annotations: Record<string, string> } {
  return {
    labels: { [Labels.role]: Roles.webhook, [WebhookLabels.id]: record.id, [WebhookLabels.endpointHash]: endpointHash(record.endpoint) },
    annotations: {
      [Annotations.endpoint]: record.endpoint,
      [Annotations.eventTypes]: record.eventTypes.join(','),
      [Annotations.createdAt]: new Date(record.createdAt).toISOString(),
      [Annotations.updatedAt]: new Date(record.updatedAt).toISOString(),
      [Annotations.subscribedAt]: JSON.stringify(record.subscribedAt),
    },
  };
}

export const newWebhookObject = (record: WebhookRecord): KubeObject =>
  newObject<KubeObject>(Kinds.ConfigMap, { name: webhookObjectName(record.id), namespace: record.project, ...describe(record) }, { data: {} });

/** The webhook an object holds; undefined for objects being deleted or not webhooks. */
export function webhookRecord(obj: KubeObject): WebhookRecord | undefined {
  const a = obj.metadata.annotations ?? {};
  const id = obj.metadata.labels?.[WebhookLabels.id];
  const createdAt = Date.parse(a[Annotations.createdAt] ?? '');
  const updatedAt = Date.parse(a[Annotations.updatedAt] ?? '');
  const endpoint = a[Annotations.endpoint];
  if (obj.metadata.deletionTimestamp || obj.metadata.labels?.[Labels.role] !== Roles.webhook || !id || !endpoint || Number.isNaN(createdAt)) return undefined;
  const eventTypes = (a[Annotations.eventTypes] ?? '').split(',').filter((t) => t !== '') as EventType[];
  return { id, project: obj.metadata.namespace!, endpoint, eventTypes, createdAt, updatedAt: Number.isNaN(updatedAt) ? createdAt : updatedAt, subscribedAt: subscriptionTimes(a[Annotations.subscribedAt]) };
}

function subscriptionTimes(text: string | undefined): Partial<Record<EventType, number>> {
  try {
    const parsed = JSON.parse(text ?? '{}') as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Partial<Record<EventType, number>>) : {};
  } catch {
    // Unreadable: every type counts from the webhook's creation.
    return {};
  }
}

/** The object with the record's endpoint, event types and update time. */
export function withRecord(obj: KubeObject, record: WebhookRecord): KubeObject {
  const { labels, annotations } = describe(record);
  return { ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, ...labels }, annotations: { ...obj.metadata.annotations, ...annotations } } };
}
