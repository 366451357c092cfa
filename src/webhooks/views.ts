// How webhooks and their deliveries look on the wire. A webhook's signing secret is never part of
// its view: it is shown only by create and rotate.
import type { Delivery } from './deliveries.js';
import type { WebhookRecord } from './objects.js';

const iso = (ms: number): string => new Date(ms).toISOString();

export const webhookView = (record: WebhookRecord) => ({
  id: record.id,
  projectId: record.project,
  endpoint: record.endpoint,
  eventTypes: record.eventTypes,
  createdAt: iso(record.createdAt),
  updatedAt: iso(record.updatedAt),
});

export const deliveryView = (d: Delivery) => ({
  id: d.eventId,
  webhookId: d.webhookId,
  type: d.type,
  resourceId: d.resourceId,
  status: d.state,
  createdAt: iso(d.createdAt),
  ...(d.state === 'pending' && d.nextAttemptAt !== undefined ? { nextAttemptAt: iso(d.nextAttemptAt) } : {}),
  ...(d.finishedAt !== undefined ? { finishedAt: iso(d.finishedAt) } : {}),
  attempts: d.attempts,
});
