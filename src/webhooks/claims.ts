// Two registrations that race both pass a check of what is stored, so a project's webhook cap and its
// one-webhook-per-endpoint rule rest on claims: ConfigMaps with fixed names, which the store lets
// exactly one registration create. A claim is owned by the webhook holding it and goes with it; one
// whose webhook is gone (the kube garbage collector not round yet) or no longer fits it is taken over.
// A webhook moving to another endpoint claims it before its record says so: such a claim stands for
// PENDING_MS, so a change that died half-way frees the endpoint again.
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../cluster/objects.js';
import { isAlreadyExists, isConflict, isNotFound, type ClusterPort } from '../cluster/port.js';
import { conflict } from '../domain/errors.js';
import { Labels, Roles } from '../schemas/resources.js';
import { endpointHash, webhookRecord, type WebhookRecord } from './objects.js';

const SLOT_PREFIX = 'webhook-claim-slot-';
const slotClaimName = (slot: number): string => `${SLOT_PREFIX}${slot}`;
const endpointClaimName = (endpoint: string): string => `webhook-claim-endpoint-${endpointHash(endpoint)}`;
/** Takeovers of one name before giving up: each means another registration changed it meanwhile. */
const ATTEMPTS = 5;
const PENDING_MS = 60_000;

const configMaps = (cluster: ClusterPort) => cluster.resource(Kinds.ConfigMap);
const newClaim = (webhook: KubeObject, name: string): KubeObject =>
  newObject<KubeObject>(
    Kinds.ConfigMap,
    { name, namespace: webhook.metadata.namespace, labels: { [Labels.role]: Roles.webhookClaim }, ownerReferences: [ownerReferenceTo(webhook)] },
    { data: {} },
  );

/** Deletes this very claim; gone or already replaced is as good. */
async function deleteClaim(cluster: ClusterPort, claimObject: KubeObject): Promise<void> {
  try {
    await configMaps(cluster).delete(claimObject.metadata.namespace, claimObject.metadata.name, { uid: claimObject.metadata.uid });
  } catch (err) {
    if (!isNotFound(err) && !isConflict(err)) throw err;
  }
}

/**
 * Claims `name` for `webhook` (a stored webhook ConfigMap). Returns the other live webhook that holds
 * it (`fits` says whether a holder's claim still stands), or undefined once `webhook` holds it.
 */
async function claim(
  cluster: ClusterPort,
  webhook: KubeObject,
  name: string,
  fits: (holder: WebhookRecord, claimedAt: number) => boolean,
): Promise<WebhookRecord | undefined> {
  const namespace = webhook.metadata.namespace!;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      await configMaps(cluster).create(newClaim(webhook, name));
      return undefined;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    const existing = await configMaps(cluster).get(namespace, name);
    if (!existing) continue;
    const owner = existing.metadata.ownerReferences?.[0];
    if (owner?.uid === webhook.metadata.uid) return undefined;
    const holderObject = owner ? await configMaps(cluster).get(namespace, owner.name) : undefined;
    const holder = holderObject?.metadata.uid === owner?.uid && holderObject ? webhookRecord(holderObject) : undefined;
    if (holder && fits(holder, Date.parse(existing.metadata.creationTimestamp ?? ''))) return holder;
    await deleteClaim(cluster, existing);
  }
  throw conflict(`Other registrations in this project kept changing the webhook claim ${name}; send the request again`);
}

/** The live webhook already registered for `endpoint` in the project, or undefined once `webhook` holds the endpoint. */
export const claimEndpoint = (cluster: ClusterPort, webhook: KubeObject, endpoint: string): Promise<WebhookRecord | undefined> =>
  claim(cluster, webhook, endpointClaimName(endpoint), (holder, claimedAt) => holder.endpoint === endpoint || Date.now() - claimedAt < PENDING_MS);

/** Gives up `webhook`'s claim on an endpoint it has left, or failed to move to. */
export async function releaseEndpoint(cluster: ClusterPort, webhook: KubeObject, endpoint: string): Promise<void> {
  const existing = await configMaps(cluster).get(webhook.metadata.namespace!, endpointClaimName(endpoint));
  if (!existing || existing.metadata.ownerReferences?.[0]?.uid !== webhook.metadata.uid) return;
  await deleteClaim(cluster, existing);
}

/** Whether `webhook` got one of the project's `maxPerProject` slots; the free-looking ones are tried first. */
export async function claimSlot(cluster: ClusterPort, webhook: KubeObject, maxPerProject: number): Promise<boolean> {
  const { items } = await configMaps(cluster).list(webhook.metadata.namespace!, { labelSelector: `${Labels.role}=${Roles.webhookClaim}` });
  const taken = new Set(items.map((c) => c.metadata.name));
  const slots = Array.from({ length: maxPerProject }, (_, slot) => slotClaimName(slot));
  for (const name of [...slots.filter((s) => !taken.has(s)), ...slots.filter((s) => taken.has(s))]) {
    if (!(await claim(cluster, webhook, name, () => true))) return true;
  }
  return false;
}
