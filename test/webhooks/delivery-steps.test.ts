// The delivery steps over the real embedded store with a fake clock: an endpoint whose name
// resolves to a private address is refused by the fetch SSRF guard at delivery and recorded as a
// failed attempt; retries wait by the backoff schedule and give up after the last attempt; finished
// deliveries are pruned once kept long enough and their resource has left the store. Also the
// events an Invocation yields (a cancelled queued one never ran) and the rotation's 24-hour window.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds, newObject } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import type { InvocationObject } from '../../src/schemas/resources.js';
import { createWebhook, getWebhook, rotateWebhookSecret, updateWebhook, ROTATION_GRACE_MS } from '../../src/webhooks/store.js';
import { invocationEvents } from '../../src/webhooks/events.js';
import { recordEvents } from '../../src/webhooks/emit.js';
import { deliveryStep } from '../../src/webhooks/deliver.js';
import { deliveryName, readDelivery } from '../../src/webhooks/deliveries.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { loadWebhookSettings, retryDelayMs } from '../../src/webhooks/settings.js';
import { MAX_EARLIER_SECRETS, signingSecretName, signingSecrets } from '../../src/webhooks/signing-secret.js';
import { signDelivery } from '../../src/webhooks/signing.js';
import { Webhook } from 'standardwebhooks';
import { startHoldServer } from '../support/hold-server.js';

const invocation = (name: string, status: InvocationObject['status'], createdAt: string): InvocationObject =>
  newObject<InvocationObject>(
    Kinds.Invocation,
    { name, namespace: 'default', uid: `uid-${name}`, annotations: { 'browserfn.dev/created-at': createdAt } },
    { spec: { functionName: 'f', functionUid: randomUUID(), versionId: randomUUID(), bundleConfigMap: 'b', params: { secret: 'p' }, sessionConfig: {}, timeoutSeconds: 60, sessionId: randomUUID() }, status },
  );

describe('webhook delivery steps (embedded store, fake clock)', () => {
  let cluster: ClusterPort;
  let sender: WebhookSender;
  const settings = { ...loadWebhookSettings({}), maxAttempts: 3, retryBaseMs: 1_000, maxRetryDelayMs: 1_500, retentionMs: 60_000 };

  before(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    // The receiver's name resolves to loopback: the guard refuses it when the flag is off.
    sender = new WebhookSender(settings, async () => ['127.0.0.1']);
  });
  after(async () => {
    await sender.close();
    await cluster.close();
  });

  it('records a refused address as a failed attempt, retries on the backoff schedule, gives up, and prunes', async () => {
    const { record } = await createWebhook(cluster, 'default', { endpoint: 'https://receiver.example.test/hook', eventTypes: ['functions.invocations.completed'] }, false);
    const ended = invocation('inv-1', { phase: 'COMPLETED', startedAt: '2030-01-01T00:00:01.000Z', endedAt: '2030-01-01T00:00:02.000Z' }, '2030-01-01T00:00:00.000Z');
    const events = invocationEvents(ended);
    const webhooks = [await getWebhook(cluster, 'default', record.id)];
    assert.equal(await recordEvents(cluster, events, { kind: 'Invocation', name: 'inv-1' }, webhooks, Date.now()), 1, 'only the subscribed type');
    assert.equal(await recordEvents(cluster, events, { kind: 'Invocation', name: 'inv-1' }, webhooks, Date.now()), 0, 'recorded once');

    let now = Date.now();
    const deps = { cluster, sender, settings, now: () => now };
    const name = deliveryName(events.find((e) => e.type === 'functions.invocations.completed')!.id, record.id);
    const first = await deliveryStep(deps, 'default', name);
    assert.equal(first.did, 'retrying');
    assert.match(first.attempt!.error!, /^Refused by the address guard: receiver\.example\.test resolves to 127\.0\.0\.1, which is a loopback address/);
    assert.equal(first.againAfterMs, retryDelayMs(settings, 1));

    assert.equal((await deliveryStep(deps, 'default', name)).did, 'waited', 'not due yet');
    now += 1_000;
    const second = await deliveryStep(deps, 'default', name);
    assert.equal(second.did, 'retrying');
    assert.equal(second.againAfterMs, 1_500, 'twice the base, capped');
    now += 1_500;
    assert.equal((await deliveryStep(deps, 'default', name)).did, 'failed');

    const stored = readDelivery((await cluster.resource(Kinds.ConfigMap).get('default', name))!)!;
    assert.equal(stored.state, 'failed');
    assert.equal(stored.attempts.length, 3);
    assert.ok(stored.attempts.every((a) => a.statusCode === undefined && /address guard/.test(a.error!)));
    assert.ok(!stored.payload.includes('"params"'), 'params stay out of the envelope');

    assert.equal((await deliveryStep(deps, 'default', name)).did, 'waited', 'kept for its retention');
    now += settings.retentionMs;
    const { uid: _uid, ...metadata } = ended.metadata;
    await cluster.resource(Kinds.Invocation).create({ ...ended, metadata, status: undefined });
    assert.equal((await deliveryStep(deps, 'default', name)).did, 'waited', 'kept while its invocation is in the store');
    await cluster.resource(Kinds.Invocation).delete('default', 'inv-1');
    assert.equal((await deliveryStep(deps, 'default', name)).did, 'pruned');
    assert.equal(await cluster.resource(Kinds.ConfigMap).get('default', name), undefined);
  });

  it('derives a cancelled queued invocation as pending and failed only, and a finished one with running', () => {
    const cancelled = invocation('inv-2', { phase: 'FAILED', cause: { code: 'CANCELLED' }, endedAt: '2030-01-01T00:00:05.000Z' }, '2030-01-01T00:00:00.000Z');
    assert.deepEqual(invocationEvents(cancelled).map((e) => e.type), ['functions.invocations.pending', 'functions.invocations.failed']);
    const ran = invocation('inv-3', { phase: 'COMPLETED', startedAt: '2030-01-01T00:00:01.000Z', endedAt: '2030-01-01T00:00:02.000Z' }, '2030-01-01T00:00:00.000Z');
    const events = invocationEvents(ran);
    assert.deepEqual(events.map((e) => [e.type, e.data.status]), [
      ['functions.invocations.pending', 'PENDING'],
      ['functions.invocations.running', 'RUNNING'],
      ['functions.invocations.completed', 'COMPLETED'],
    ]);
    assert.deepEqual(invocationEvents(ran).map((e) => e.id), events.map((e) => e.id), 'stable IDs');
  });

  it("keeps the old secret signing for 24 hours after a rotation, and not after a revoke", async () => {
    const { record, secret: original } = await createWebhook(cluster, 'default', { endpoint: 'https://receiver.example.test/rotate', eventTypes: ['functions.builds.completed'] }, false);
    const rotated = await rotateWebhookSecret(cluster, 'default', record.id, false);
    const signing = async () => (await cluster.resource(Kinds.Secret).get('default', signingSecretName(record.id)))!;
    const object = await signing();
    const now = Date.now();
    assert.deepEqual(signingSecrets(object, now), [rotated, original]);
    assert.deepEqual(signingSecrets(object, now + ROTATION_GRACE_MS + 1_000), [rotated], 'the old secret is done after 24 hours');
    const headers = signDelivery(signingSecrets(object, now), 'evt_1', new Date(), '{"a":1}');
    new Webhook(original).verify('{"a":1}', { ...headers });
    const revoked = await rotateWebhookSecret(cluster, 'default', record.id, true);
    assert.deepEqual(signingSecrets(await signing(), now), [revoked]);
  });

  it('keeps each earlier secret for 24 hours from its own rotation when rotated again within the day, at most ten', async () => {
    const { record, secret: first } = await createWebhook(cluster, 'default', { endpoint: 'https://receiver.example.test/rotate-twice', eventTypes: ['functions.builds.completed'] }, false);
    const second = await rotateWebhookSecret(cluster, 'default', record.id, false);
    const third = await rotateWebhookSecret(cluster, 'default', record.id, false);
    const object = (await cluster.resource(Kinds.Secret).get('default', signingSecretName(record.id)))!;
    const now = Date.now();
    assert.deepEqual(signingSecrets(object, now), [third, second, first], 'the first secret still signs after the second rotation');
    new Webhook(first).verify('{"a":1}', { ...signDelivery(signingSecrets(object, now), 'evt_2', new Date(), '{"a":1}') });
    assert.deepEqual(signingSecrets(object, now + ROTATION_GRACE_MS + 60_000), [third]);

    let latest = third;
    for (let i = 0; i < MAX_EARLIER_SECRETS + 5; i += 1) latest = await rotateWebhookSecret(cluster, 'default', record.id, false);
    const many = signingSecrets((await cluster.resource(Kinds.Secret).get('default', signingSecretName(record.id)))!, Date.now());
    assert.equal(many.length, MAX_EARLIER_SECRETS + 1);
    assert.equal(many[0], latest);
    assert.ok(!many.includes(first), 'the oldest earlier secrets are dropped first');
  });

  it('ends an attempt the receiver does not answer at the timeout, as a failed attempt', async () => {
    const hold = await startHoldServer();
    const quick = new WebhookSender({ ...settings, allowPrivate: true, timeoutMs: 300 });
    try {
      const attempt = await quick.send(`${hold.url}/slow`, signDelivery(['whsec_' + randomBytes(32).toString('base64')], 'evt_t', new Date(), '{}'), '{}');
      assert.equal(attempt.statusCode, undefined);
      assert.equal(attempt.error, 'No answer within the 300 ms timeout');
      assert.ok(attempt.durationMs >= 250 && attempt.durationMs < 10_000, String(attempt.durationMs));
      assert.equal(hold.seen(), 1);
    } finally {
      hold.release();
      await quick.close();
      await hold.close();
    }
  });

  it('sends a type only for what happened after the webhook subscribed to it', async () => {
    const { record } = await createWebhook(cluster, 'default', { endpoint: 'https://receiver.example.test/late', eventTypes: ['functions.invocations.completed'] }, false);
    const updated = await updateWebhook(cluster, 'default', record.id, { eventTypes: ['functions.invocations.completed', 'functions.invocations.pending'] }, false);
    assert.equal(updated.subscribedAt['functions.invocations.completed'], record.createdAt, 'a kept type keeps its time');
    assert.ok(updated.subscribedAt['functions.invocations.pending']! >= record.createdAt);
    const { object } = await getWebhook(cluster, 'default', record.id);
    // The same webhook as if the pending type had been added at t=5000.
    const webhook = { object, record: { ...updated, createdAt: 1_000, subscribedAt: { 'functions.invocations.completed': 1_000, 'functions.invocations.pending': 5_000 } } };
    const inv = invocation('inv-late', { phase: 'COMPLETED', startedAt: new Date(3_500).toISOString(), endedAt: new Date(6_000).toISOString() }, new Date(3_000).toISOString());
    assert.equal(await recordEvents(cluster, invocationEvents(inv), { kind: 'Invocation', name: 'inv-late' }, [webhook], Date.now()), 1, 'completed (at 6000) only; pending (at 3000) came before the subscription');
  });
});
