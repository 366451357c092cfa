// Records the events an object has reached as deliveries to the webhooks that subscribe to them.
// Idempotent: a delivery's name is derived from the event and the webhook, so an event recorded
// before (by an earlier reconcile, or before a restart) is an AlreadyExists and is not sent again.
// A webhook hears only of events that happened after it subscribed to their type.
import { Kinds } from '../cluster/objects.js';
import { isAlreadyExists, type ClusterPort } from '../cluster/port.js';
import { newDeliveryObject, type SourceRef } from './deliveries.js';
import type { WebhookEvent } from './events.js';
import type { StoredWebhook } from './store.js';

/** Returns how many deliveries it recorded now. */
export async function recordEvents(cluster: ClusterPort, events: readonly WebhookEvent[], source: SourceRef, webhooks: readonly StoredWebhook[], now: number): Promise<number> {
  const configMaps = cluster.resource(Kinds.ConfigMap);
  let recorded = 0;
  for (const event of events) {
    for (const { record, object } of webhooks) {
      if (!record.eventTypes.includes(event.type) || event.occurredAt < (record.subscribedAt[event.type] ?? record.createdAt)) continue;
      try {
        await configMaps.create(newDeliveryObject(object, event, source, now));
        recorded += 1;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
  }
  return recorded;
}
