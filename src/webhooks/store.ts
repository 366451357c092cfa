// Webhooks in the cluster store (objects.ts, signing-secret.ts): register, find, list, change,
// rotate the secret, delete. Deleting one deletes its signing secrets and deliveries with it (they
// are owned by it), so deliveries stop at once.
import { randomUUID } from 'node:crypto';
import { Kinds, type KubeObject } from '../cluster/objects.js';
import { isConflict, isNotFound, type ClusterPort, type ResourceClient } from '../cluster/port.js';
import { retryOnConflict } from '../cluster/retry.js';
import { conflict, notFound, type DomainError } from '../domain/errors.js';
import { assertUuid } from '../functions/lookup.js';
import { claimEndpoint, claimSlot, claimUnclaimed, releaseEndpoint } from './claims.js';
import { checkEndpoint } from './endpoint.js';
import { DEFAULT_WEBHOOKS_PER_PROJECT } from './settings.js';
import { parseEventTypes, type EventType } from './event-types.js';
import { endpointHash, newWebhookObject, WEBHOOK_SELECTOR, WebhookLabels, webhookObjectName, webhookRecord, withRecord, type WebhookRecord } from './objects.js';
import { newSigningSecretObject, signingSecretName, withRotatedSecret } from './signing-secret.js';
import { newSigningSecret } from './signing.js';

/** How long a rotated-out secret keeps signing deliveries, unless the rotation revokes it at once. */
export const ROTATION_GRACE_MS = 24 * 3_600_000;

export interface StoredWebhook {
  record: WebhookRecord;
  object: KubeObject;
}

export interface WebhookInput {
  endpoint?: string;
  eventTypes?: string[];
}

const webhooks = (cluster: ClusterPort): ResourceClient => cluster.resource(Kinds.ConfigMap);
const secrets = (cluster: ClusterPort): ResourceClient => cluster.resource(Kinds.Secret);
const missing = (id: string) => notFound(`Webhook ${id} does not exist in this project`);
const stored = (object: KubeObject): StoredWebhook | undefined => {
  const record = webhookRecord(object);
  return record ? { record, object } : undefined;
};
/** Kept types keep their time; added ones count from now; removed ones are forgotten (re-adding counts from then). */
const subscribed = (types: readonly EventType[], before: WebhookRecord['subscribedAt'], now: number): WebhookRecord['subscribedAt'] =>
  Object.fromEntries(types.map((type) => [type, before[type] ?? now]));

/** Every webhook of the project (objects being deleted left out). */
export async function listWebhooks(cluster: ClusterPort, project: string, selector = WEBHOOK_SELECTOR): Promise<StoredWebhook[]> {
  const { items } = await webhooks(cluster).list(project, { labelSelector: selector });
  return items.map(stored).filter((w): w is StoredWebhook => w !== undefined);
}

/** The webhook with this ID in the project; `not-found` when missing (also when it is another project's). */
export async function getWebhook(cluster: ClusterPort, project: string, id: string): Promise<StoredWebhook> {
  assertUuid(id, 'webhook ID');
  const object = await webhooks(cluster).get(project, webhookObjectName(id.toLowerCase()));
  const found = object && stored(object);
  if (!found) throw missing(id);
  return found;
}

const sameEndpoint = (cluster: ClusterPort, project: string, endpoint: string): Promise<StoredWebhook[]> =>
  listWebhooks(cluster, project, `${WEBHOOK_SELECTOR},${WebhookLabels.endpointHash}=${endpointHash(endpoint)}`).then((all) => all.filter((w) => w.record.endpoint === endpoint));

const taken = (endpoint: string, holder: WebhookRecord) =>
  conflict(`The endpoint ${endpoint} is already registered in this project (webhook ${holder.id}); change that webhook's event types instead, or delete it first`);

const full = (maxPerProject: number) =>
  conflict(`The project has ${maxPerProject} webhooks, as many as this server allows (BROWSERFN_WEBHOOK_MAX_PER_PROJECT); delete one, or subscribe an existing one to more event types`);

/** Why registering `endpoint` beside `others` (webhooks of its project) is refused, if it is. */
function clash(others: StoredWebhook[], endpoint: string, maxPerProject: number): DomainError | undefined {
  const holder = others.find((w) => w.record.endpoint === endpoint);
  if (holder) return taken(endpoint, holder.record);
  return others.length >= maxPerProject ? full(maxPerProject) : undefined;
}

/**
 * Registers an endpoint; returns the webhook and its signing secret (shown only now). `conflict`
 * when the project has the endpoint already, or `maxPerProject` webhooks.
 */
export async function createWebhook(
  cluster: ClusterPort,
  project: string,
  input: Required<WebhookInput>,
  allowPrivate: boolean,
  maxPerProject = DEFAULT_WEBHOOKS_PER_PROJECT,
): Promise<{ record: WebhookRecord; secret: string }> {
  const endpoint = checkEndpoint(input.endpoint, allowPrivate);
  const eventTypes = parseEventTypes(input.eventTypes);
  // What is stored refuses at once; claims settle races, once the webhooks registered before claims existed hold theirs.
  const others = await listWebhooks(cluster, project);
  const refused = clash(others, endpoint, maxPerProject);
  if (refused) throw refused;
  await claimUnclaimed(cluster, others.map((w) => w.object), maxPerProject);
  const now = Date.now();
  const record: WebhookRecord = { id: randomUUID(), project, endpoint, eventTypes, createdAt: now, updatedAt: now, subscribedAt: subscribed(eventTypes, {}, now) };
  const created = await webhooks(cluster).create(newWebhookObject(record));
  // Its claims, secret and deliveries are owned by it and go with it.
  const withdraw = () => webhooks(cluster).delete(project, created.metadata.name, { uid: created.metadata.uid });
  const secret = newSigningSecret();
  try {
    const holder = await claimEndpoint(cluster, created, endpoint);
    if (holder) throw taken(endpoint, holder);
    if (!(await claimSlot(cluster, created, maxPerProject))) throw full(maxPerProject);
    await secrets(cluster).create(newSigningSecretObject(created, record.id, secret));
  } catch (err) {
    await withdraw().catch(() => undefined);
    throw err;
  }
  return { record, secret };
}

/** Changes the endpoint, the event types (replaced, not added to), or both; the secret is unaffected. */
export async function updateWebhook(cluster: ClusterPort, project: string, id: string, input: WebhookInput, allowPrivate: boolean): Promise<WebhookRecord> {
  const endpoint = input.endpoint === undefined ? undefined : checkEndpoint(input.endpoint, allowPrivate);
  const eventTypes = input.eventTypes === undefined ? undefined : parseEventTypes(input.eventTypes);
  let moved: { object: KubeObject; from: string } | undefined;
  try {
    const updated = await writeWebhook(cluster, project, id, async ({ record, object }) => {
      if (endpoint !== undefined && endpoint !== record.endpoint) {
        const holder = (await sameEndpoint(cluster, project, endpoint))[0]?.record ?? (await claimEndpoint(cluster, object, endpoint));
        if (holder) throw taken(endpoint, holder);
        moved = { object, from: record.endpoint };
      }
      const now = Date.now();
      const types = eventTypes ?? record.eventTypes;
      const next: WebhookRecord = { ...record, endpoint: endpoint ?? record.endpoint, eventTypes: types, updatedAt: now, subscribedAt: subscribed(types, record.subscribedAt, now) };
      return { object: withRecord(object, next), result: next };
    });
    if (moved && updated.endpoint !== moved.from) await releaseEndpoint(cluster, moved.object, moved.from);
    return updated;
  } catch (err) {
    if (moved && endpoint !== undefined) await releaseEndpoint(cluster, moved.object, endpoint).catch(() => undefined);
    throw err;
  }
}

/** Issues a new signing secret; the old ones keep signing for ROTATION_GRACE_MS from their rotation unless `revokeImmediately`. */
export async function rotateWebhookSecret(cluster: ClusterPort, project: string, id: string, revokeImmediately: boolean): Promise<string> {
  const secret = newSigningSecret();
  await retryOnConflict(async () => {
    const { record } = await getWebhook(cluster, project, id);
    const current = await secrets(cluster).get(project, signingSecretName(record.id));
    if (!current) throw missing(id);
    try {
      await secrets(cluster).update(withRotatedSecret(current, secret, Date.now(), ROTATION_GRACE_MS, revokeImmediately));
    } catch (err) {
      if (isNotFound(err)) throw missing(id);
      throw err;
    }
  });
  return secret;
}

export async function deleteWebhook(cluster: ClusterPort, project: string, id: string): Promise<WebhookRecord> {
  const { record, object } = await getWebhook(cluster, project, id);
  try {
    await webhooks(cluster).delete(project, object.metadata.name, { uid: object.metadata.uid });
  } catch (err) {
    if (isNotFound(err) || isConflict(err)) throw missing(id);
    throw err;
  }
  return record;
}

async function writeWebhook<T>(cluster: ClusterPort, project: string, id: string, change: (w: StoredWebhook) => Promise<{ object: KubeObject; result: T }>): Promise<T> {
  return retryOnConflict(async () => {
    const { object, result } = await change(await getWebhook(cluster, project, id));
    try {
      await webhooks(cluster).update(object);
    } catch (err) {
      if (isNotFound(err)) throw missing(id);
      throw err;
    }
    return result;
  });
}
