// One delivery = one event for one webhook, stored as a ConfigMap owned by the webhook (deleting
// the webhook deletes its deliveries). Its name is derived from the event ID and the webhook ID, so
// recording an event twice is an AlreadyExists: the store itself makes each event go out once per
// webhook. It holds the exact body every attempt sends, the attempts made, and when the next is due;
// being in the store, a pending delivery survives a restart.
import { createHash } from 'node:crypto';
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../cluster/objects.js';
import { Labels, Roles } from '../schemas/resources.js';
import { envelope, type WebhookEvent } from './events.js';
import type { EventType } from './event-types.js';
import { WebhookLabels } from './objects.js';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface Attempt {
  /** When the attempt started (RFC 3339). */
  at: string;
  durationMs: number;
  /** The receiver's HTTP status, when it answered. */
  statusCode?: number;
  /** Why the attempt failed without a 2xx answer (refused address, timeout, connection error). */
  error?: string;
}

export interface SourceRef {
  kind: 'Invocation' | 'Build';
  name: string;
}

export interface Delivery {
  name: string;
  project: string;
  webhookId: string;
  eventId: string;
  type: EventType;
  resourceId: string;
  source: SourceRef;
  /** Milliseconds since the epoch. */
  createdAt: number;
  state: DeliveryState;
  attempts: Attempt[];
  nextAttemptAt?: number;
  finishedAt?: number;
  payload: string;
}

export const DeliveryLabels = { state: 'browserfn.dev/delivery-state' } as const;
const Annotations = {
  eventId: 'browserfn.dev/event-id',
  eventType: 'browserfn.dev/event-type',
  resourceId: 'browserfn.dev/resource-id',
  source: 'browserfn.dev/source',
  createdAt: 'browserfn.dev/created-at',
  nextAttemptAt: 'browserfn.dev/next-attempt-at',
  finishedAt: 'browserfn.dev/finished-at',
} as const;
const PAYLOAD_KEY = 'payload';
const ATTEMPTS_KEY = 'attempts';
/** An attempt's error as recorded: enough to tell what went wrong, bounded so a record stays small. */
const MAX_ERROR_LENGTH = 512;

export const DELIVERY_SELECTOR = `${Labels.role}=${Roles.webhookDelivery}`;
export const deliveriesOf = (webhookId: string): string => `${DELIVERY_SELECTOR},${WebhookLabels.id}=${webhookId}`;

export const deliveryName = (eventId: string, webhookId: string): string =>
  `webhook-delivery-${createHash('sha256').update(`${eventId}/${webhookId}`).digest('hex').slice(0, 40)}`;

const iso = (ms: number): string => new Date(ms).toISOString();
const msOf = (text: string | undefined): number | undefined => {
  const t = Date.parse(text ?? '');
  return Number.isNaN(t) ? undefined : t;
};

/** A pending delivery of the event to the webhook (a stored webhook Secret), due at once. */
export function newDeliveryObject(webhook: KubeObject, event: WebhookEvent, source: SourceRef, now: number): KubeObject {
  const webhookId = webhook.metadata.labels?.[WebhookLabels.id] ?? '';
  return newObject<KubeObject>(
    Kinds.ConfigMap,
    {
      name: deliveryName(event.id, webhookId),
      namespace: webhook.metadata.namespace,
      labels: { [Labels.role]: Roles.webhookDelivery, [WebhookLabels.id]: webhookId, [DeliveryLabels.state]: 'pending' },
      annotations: {
        [Annotations.eventId]: event.id,
        [Annotations.eventType]: event.type,
        [Annotations.resourceId]: event.resourceId,
        [Annotations.source]: `${source.kind}/${source.name}`,
        [Annotations.createdAt]: iso(now),
        [Annotations.nextAttemptAt]: iso(now),
      },
      ownerReferences: [ownerReferenceTo(webhook, false)],
    },
    { data: { [PAYLOAD_KEY]: envelope(event), [ATTEMPTS_KEY]: '[]' } },
  );
}

/** The delivery a ConfigMap holds; undefined for objects being deleted or not deliveries. */
export function readDelivery(obj: KubeObject): Delivery | undefined {
  const a = obj.metadata.annotations ?? {};
  const l = obj.metadata.labels ?? {};
  const [kind, name] = (a[Annotations.source] ?? '').split('/');
  const createdAt = msOf(a[Annotations.createdAt]);
  const state = l[DeliveryLabels.state] as DeliveryState | undefined;
  if (obj.metadata.deletionTimestamp || l[Labels.role] !== Roles.webhookDelivery || createdAt === undefined || !state || !name) return undefined;
  if (kind !== 'Invocation' && kind !== 'Build') return undefined;
  let attempts: Attempt[] = [];
  try {
    attempts = JSON.parse(obj.data?.[ATTEMPTS_KEY] ?? '[]') as Attempt[];
  } catch {
    // A damaged list of attempts loses the history, not the delivery.
  }
  return {
    name: obj.metadata.name,
    project: obj.metadata.namespace!,
    webhookId: l[WebhookLabels.id] ?? '',
    eventId: a[Annotations.eventId] ?? '',
    type: a[Annotations.eventType] as EventType,
    resourceId: a[Annotations.resourceId] ?? '',
    source: { kind, name },
    createdAt,
    state,
    attempts,
    nextAttemptAt: msOf(a[Annotations.nextAttemptAt]),
    finishedAt: msOf(a[Annotations.finishedAt]),
    payload: obj.data?.[PAYLOAD_KEY] ?? '',
  };
}

export interface AttemptOutcome {
  state: DeliveryState;
  /** Pending: when to try again. */
  nextAttemptAt?: number;
}

/** The object after one more attempt, in the state the attempt led to. */
export function withAttempt(obj: KubeObject, attempt: Attempt, outcome: AttemptOutcome, now: number): KubeObject {
  const previous = readDelivery(obj)?.attempts ?? [];
  const recorded: Attempt = attempt.error ? { ...attempt, error: attempt.error.slice(0, MAX_ERROR_LENGTH) } : attempt;
  const annotations = { ...obj.metadata.annotations };
  delete annotations[Annotations.nextAttemptAt];
  if (outcome.nextAttemptAt !== undefined) annotations[Annotations.nextAttemptAt] = iso(outcome.nextAttemptAt);
  if (outcome.state !== 'pending') annotations[Annotations.finishedAt] = iso(now);
  return {
    ...obj,
    metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, [DeliveryLabels.state]: outcome.state }, annotations },
    data: { ...obj.data, [ATTEMPTS_KEY]: JSON.stringify([...previous, recorded]) },
  };
}
