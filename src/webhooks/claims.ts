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

const SLOT_CLAIM_PREFIX = 'webhook-claim-slot-';
const slotClaimName = (slot: number): string => `${SLOT_CLAIM_PREFIX}${slot}`;
const endpointClaimName = (endpoint: string): string => `webhook-claim-endpoint-${endpointHash(endpoint)}`;
/** Takeovers of one name before giving up: each means another registration changed it meanwhile. */
const ATTEMPTS = 5;
const PENDING_MS = 60_000;

const configMaps = (cluster: ClusterPort) => cluster.resource(Kinds.ConfigMap);
const listClaims = async (cluster: ClusterPort, namespace: string): Promise<KubeObject[]> =>
  (await configMaps(cluster).list(namespace, { labelSelector: `${Labels.role}=${Roles.webhookClaim}` })).items;
/** A slot claim's number, NaN for any other claim. */
const slotOrder = ({ metadata: { name } }: KubeObject): number => {
  const slot = name.startsWith(SLOT_CLAIM_PREFIX) ? name.slice(SLOT_CLAIM_PREFIX.length) : '';
  return /^\d+$/.test(slot) ? Number(slot) : NaN;
};
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

const isSlot = (claimObject: KubeObject): boolean => !Number.isNaN(slotOrder(claimObject));
const heldBy = (webhook: KubeObject) => (claimObject: KubeObject): boolean => claimObject.metadata.ownerReferences?.[0]?.uid === webhook.metadata.uid;

/** Whether `webhook` got (or holds) one of the project's `maxPerProject` slots; the free-looking ones are tried first. */
export async function claimSlot(cluster: ClusterPort, webhook: KubeObject, maxPerProject: number): Promise<boolean> {
  const claims = await listClaims(cluster, webhook.metadata.namespace!);
  if (claims.some((c) => isSlot(c) && heldBy(webhook)(c))) return true;
  const taken = new Set(claims.map((c) => c.metadata.name));
  const slots = Array.from({ length: maxPerProject }, (_, slot) => slotClaimName(slot));
  for (const name of [...slots.filter((s) => !taken.has(s)), ...slots.filter((s) => taken.has(s))]) {
    if (!(await claim(cluster, webhook, name, () => true))) {
      await keepOneSlot(cluster, webhook);
      return true;
    }
  }
  return false;
}

/** Two registrations may both have given a webhook a slot (see claimUnclaimed): it keeps its lowest. */
async function keepOneSlot(cluster: ClusterPort, webhook: KubeObject): Promise<void> {
  const held = (await listClaims(cluster, webhook.metadata.namespace!)).filter((c) => isSlot(c) && heldBy(webhook)(c)).sort((a, b) => slotOrder(a) - slotOrder(b));
  for (const extra of held.slice(1)) await deleteClaim(cluster, extra);
}

/**
 * Gives each of `webhooks` (one project's) that holds no slot its endpoint and a slot, as far as they
 * are free: webhooks registered before claims existed are then counted by registrations that race.
 */
export async function claimUnclaimed(cluster: ClusterPort, webhooks: KubeObject[], maxPerProject: number): Promise<void> {
  if (webhooks.length === 0) return;
  const slotClaims = (await listClaims(cluster, webhooks[0]!.metadata.namespace!)).filter(isSlot);
  for (const webhook of webhooks.filter((w) => !slotClaims.some(heldBy(w)))) {
    const record = webhookRecord(webhook);
    if (!record) continue;
    await claimEndpoint(cluster, webhook, record.endpoint);
    await claimSlot(cluster, webhook, maxPerProject);
  }
}
