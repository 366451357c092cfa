// One step of a delivery, level-triggered: a pending delivery that is due gets one signed attempt,
// recorded with its outcome (delivered on a 2xx, else retried with exponential backoff until the
// attempts run out); a finished one is deleted once kept long enough and its resource has left the
// store (while the resource is there, the record is what keeps its events from being sent again).
// An attempt goes out before it is recorded, so a crash in between sends it once more (at least once,
// with the same webhook-id).
import { Kinds, type KubeObject } from '../cluster/objects.js';
import { isConflict, isNotFound, type ClusterPort } from '../cluster/port.js';
import { readDelivery, withAttempt, type AttemptOutcome, type Delivery } from './deliveries.js';
import { webhookObjectName, webhookRecord } from './objects.js';
import { signingSecretName, signingSecrets } from './signing-secret.js';
import type { WebhookSender } from './sender.js';
import { retryDelayMs, type WebhookSettings } from './settings.js';
import { signDelivery } from './signing.js';

/** Longest single wait asked of the work queue (timers cannot wait much beyond 24 days). */
const MAX_WAIT_MS = 86_400_000;
/** A finished delivery whose resource is still in the store is looked at again this often. */
const SOURCE_CHECK_MS = 3_600_000;

export interface DeliveryStepDeps {
  cluster: ClusterPort;
  sender: WebhookSender;
  settings: WebhookSettings;
  now: () => number;
}

export interface DeliveryStep {
  /** What happened, for logs and metrics. */
  did: 'nothing' | 'waited' | 'delivered' | 'retrying' | 'failed' | 'pruned';
  /** Look at the delivery again after this long. */
  againAfterMs?: number;
  attempt?: Delivery['attempts'][number];
}

const wait = (ms: number): number => Math.max(0, Math.min(MAX_WAIT_MS, ms));

export async function deliveryStep(deps: DeliveryStepDeps, namespace: string, name: string): Promise<DeliveryStep> {
  const { cluster, settings, now } = deps;
  const object = await cluster.resource(Kinds.ConfigMap).get(namespace, name);
  const delivery = object && readDelivery(object);
  if (!object || !delivery) return { did: 'nothing' };
  if (delivery.state !== 'pending') return prune(deps, object, delivery);
  const due = delivery.nextAttemptAt ?? delivery.createdAt;
  if (due > now()) return { did: 'waited', againAfterMs: wait(due - now()) };

  const webhook = await cluster.resource(Kinds.ConfigMap).get(namespace, webhookObjectName(delivery.webhookId));
  const record = webhook && webhookRecord(webhook);
  // Deleted: the delivery goes with it (it is owned by the webhook), and nothing more is sent.
  if (!webhook || !record) return { did: 'nothing' };
  const signing = await cluster.resource(Kinds.Secret).get(namespace, signingSecretName(record.id));
  // Only between a registration's two writes: the controller retries with backoff.
  if (!signing) throw new Error(`the signing secret of webhook ${record.id} is not stored yet`);
  const startedAt = now();
  const headers = signDelivery(signingSecrets(signing, startedAt), delivery.eventId, new Date(startedAt), delivery.payload);
  const attempt = await deps.sender.send(record.endpoint, headers, delivery.payload);
  const made = delivery.attempts.length + 1;
  const ok = attempt.statusCode !== undefined && attempt.statusCode >= 200 && attempt.statusCode < 300;
  const outcome: AttemptOutcome = ok
    ? { state: 'delivered' }
    : made >= settings.maxAttempts
      ? { state: 'failed' }
      : { state: 'pending', nextAttemptAt: now() + retryDelayMs(settings, made) };
  await cluster.resource(Kinds.ConfigMap).update(withAttempt(object, attempt, outcome, now()));
  if (outcome.state === 'pending') return { did: 'retrying', attempt, againAfterMs: wait(outcome.nextAttemptAt! - now()) };
  return { did: outcome.state, attempt, againAfterMs: wait(settings.retentionMs) };
}

async function prune(deps: DeliveryStepDeps, object: KubeObject, delivery: Delivery): Promise<DeliveryStep> {
  const left = (delivery.finishedAt ?? delivery.createdAt) + deps.settings.retentionMs - deps.now();
  if (left > 0) return { did: 'waited', againAfterMs: wait(left) };
  const source = await deps.cluster.resource(Kinds[delivery.source.kind]).get(delivery.project, delivery.source.name);
  if (source) return { did: 'waited', againAfterMs: SOURCE_CHECK_MS };
  try {
    await deps.cluster.resource(Kinds.ConfigMap).delete(delivery.project, object.metadata.name, { uid: object.metadata.uid });
  } catch (err) {
    if (!isNotFound(err) && !isConflict(err)) throw err;
  }
  return { did: 'pruned' };
}
