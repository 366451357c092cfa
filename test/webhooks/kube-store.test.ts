// Webhooks on the kube backend: the same use cases over a real kube-apiserver store a webhook as
// a ConfigMap with its signing secrets in a Secret, and its deliveries as ConfigMaps, record an event once, deliver it signed to a receiver
// on 127.0.0.1, and the cluster's garbage collector removes the deliveries with their webhook.
// Racing registrations keep the cap and unique endpoints there too, where owned objects go late.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { openKubeCluster } from '../../src/cluster/kube/index.js';
import { Kinds, newObject } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { Labels, Roles, type InvocationObject } from '../../src/schemas/resources.js';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks } from '../../src/webhooks/store.js';
import { listWebhooksPage } from '../../src/webhooks/webhook-listing.js';
import { signingSecretName } from '../../src/webhooks/signing-secret.js';
import { invocationEvents } from '../../src/webhooks/events.js';
import { recordEvents } from '../../src/webhooks/emit.js';
import { deliveryStep } from '../../src/webhooks/deliver.js';
import { deliveryName } from '../../src/webhooks/deliveries.js';
import { listDeliveries } from '../../src/webhooks/delivery-listing.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { loadWebhookSettings } from '../../src/webhooks/settings.js';
import { controlPlaneUnavailable, ensureControlPlane } from '../support/controlplane.js';
import { waitFor } from '../support/service.js';
import { startReceiver, type Receiver } from './receiver.js';

const unavailable = controlPlaneUnavailable();

(unavailable ? describe.skip : describe)(`webhooks on the kube backend${unavailable ? ` — SKIPPED: ${unavailable}` : ''}`, function () {
  this.timeout(120_000);
  const ns = `webhooks-${randomBytes(3).toString('hex')}`;
  const settings = loadWebhookSettings({ BROWSERFN_WEBHOOK_ALLOW_PRIVATE: '1' });
  let cluster: ClusterPort;
  let receiver: Receiver;
  let sender: WebhookSender;

  before(async function () {
    this.timeout(60 * 60_000);
    const plane = await ensureControlPlane();
    if (plane.state !== 'ready') throw new Error(`the test control plane is not available: ${plane.reason}`);
    cluster = await openKubeCluster({ kubeconfigPath: plane.kubeconfigPath });
    await cluster.resource(Kinds.Namespace).create(newObject(Kinds.Namespace, { name: ns }, {}));
    receiver = await startReceiver();
    sender = new WebhookSender(settings);
  });
  after(async () => {
    await cluster?.resource(Kinds.Namespace).delete(undefined, ns).catch(() => undefined);
    await cluster?.close();
    await sender?.close();
    await receiver?.close();
  });

  it('stores, records once, delivers signed, and collects deliveries with their webhook', async () => {
    const { record, secret } = await createWebhook(cluster, ns, { endpoint: `${receiver.url}/kube`, eventTypes: ['functions.invocations.completed'] }, true);
    assert.equal((await getWebhook(cluster, ns, record.id)).object.kind, 'ConfigMap');
    const signing = await cluster.resource(Kinds.Secret).get(ns, signingSecretName(record.id));
    assert.equal(signing?.type, 'browserfn.dev/webhook-signing');
    assert.deepEqual((await listWebhooksPage(cluster, ns, { limit: 10 }, undefined)).items.map((w) => w.id), [record.id]);

    const inv = newObject<InvocationObject>(
      Kinds.Invocation,
      { name: randomUUID(), namespace: ns, uid: randomUUID(), annotations: { 'browserfn.dev/created-at': new Date().toISOString() } },
      { spec: { functionName: 'f', functionUid: randomUUID(), versionId: randomUUID(), bundleConfigMap: 'b', params: {}, sessionConfig: {}, timeoutSeconds: 60, sessionId: randomUUID() }, status: { phase: 'COMPLETED', startedAt: new Date().toISOString(), endedAt: new Date().toISOString() } },
    );
    const events = invocationEvents(inv);
    const webhooks = [await getWebhook(cluster, ns, record.id)];
    assert.equal(await recordEvents(cluster, events, { kind: 'Invocation', name: inv.metadata.name }, webhooks, Date.now()), 1);
    assert.equal(await recordEvents(cluster, events, { kind: 'Invocation', name: inv.metadata.name }, webhooks, Date.now()), 0);

    const name = deliveryName(events.at(-1)!.id, record.id);
    const step = await deliveryStep({ cluster, sender, settings, now: Date.now }, ns, name);
    assert.equal(step.did, 'delivered', step.attempt?.error);
    const [got] = await receiver.until('the delivery', (rs) => rs.length >= 1);
    new Webhook(secret).verify(got.body, got.headers);
    const page = await listDeliveries(cluster, ns, record.id, { limit: 10 }, undefined);
    assert.deepEqual(page.items.map((d) => [d.state, d.attempts.map((a) => a.statusCode)]), [['delivered', [200]]]);

    await deleteWebhook(cluster, ns, record.id);
    await waitFor('the garbage collector to delete the delivery and the signing secret', async () =>
      (await cluster.resource(Kinds.ConfigMap).get(ns, name)) || (await cluster.resource(Kinds.Secret).get(ns, signingSecretName(record.id))) ? undefined : true, 60_000, 250);
  });

  it('keeps the cap and one webhook per endpoint when registrations race, and frees a deleted one\'s claims before the garbage collector runs', async () => {
    const register = (path: string) => createWebhook(cluster, ns, { endpoint: `${receiver.url}/race-${path}`, eventTypes: ['functions.builds.completed'] }, true, 3);
    const { record: first } = await register('first');
    const racing = await Promise.allSettled([register('a'), register('b'), register('c'), register('a')]);
    // The first test deleted its webhook: the project holds `first` and the two winners.
    assert.equal(racing.filter((r) => r.status === 'fulfilled').length, 2, racing.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok')).join('; '));
    const live = await listWebhooks(cluster, ns);
    assert.equal(live.length, 3);
    assert.equal(new Set(live.map((w) => w.record.endpoint)).size, 3, 'no endpoint twice');

    await deleteWebhook(cluster, ns, first.id);
    await register('first');
    await waitFor('the garbage collector to delete what the withdrawn and deleted webhooks held', async () => {
      const { items } = await cluster.resource(Kinds.ConfigMap).list(ns, { labelSelector: `${Labels.role}=${Roles.webhookClaim}` });
      return items.length === 6 ? true : undefined;
    }, 60_000, 250);
  });
});
