// Webhook deliveries from a real `serve` to a receiver on 127.0.0.1 (BROWSERFN_WEBHOOK_ALLOW_PRIVATE=1,
// retries shortened by settings): a real build's and invocation's events arrive signed per Standard
// Webhooks and verify with the `standardwebhooks` package; a 500 is retried with the same event ID
// and every attempt is recorded; a rotated secret keeps verifying until revoked; a cancelled
// invocation is a failed event; undelivered events survive a restart, delivered ones are not re-sent.
import assert from 'node:assert/strict';
import type Browserbase from '@browserbasehq/sdk';
import { Webhook } from 'standardwebhooks';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { publish, invokeAndWait } from '../support/publish.js';
import { startHoldServer } from '../support/hold-server.js';
import { startReceiver, type Received, type Receiver } from './receiver.js';
import { sdkClient, type SdkClient } from './sdk.js';

const FN = `
import { defineFn } from 'browserfn';
defineFn('maybe-hold', async (_ctx, params: { url?: string }) => (params.url ? (await fetch(params.url)).text() : 'done'));
`;
const ALL = [
  'functions.builds.running',
  'functions.builds.completed',
  'functions.builds.failed',
  'functions.invocations.pending',
  'functions.invocations.running',
  'functions.invocations.completed',
  'functions.invocations.failed',
] as const;

interface Envelope {
  id: string;
  type: string;
  resourceId: string;
  data: { id: string; status: string; cause?: { code: string } };
}

const envelope = (r: Received): Envelope => JSON.parse(r.body) as Envelope;
const at = (path: string, resourceId?: string) => (rs: Received[]) => rs.filter((r) => r.path === path && (!resourceId || envelope(r).resourceId === resourceId));
const types = (rs: Received[]) => rs.map((r) => envelope(r).type).sort();

describe('webhook deliveries (serve, BROWSERFN_WEBHOOK_ALLOW_PRIVATE=1)', function () {
  this.timeout(600_000);
  let svc: TestService;
  let receiver: Receiver;
  let bb: Browserbase;
  let sdk: SdkClient;
  let fnId: string;

  before(async () => {
    svc = await startTestService({
      BROWSERFN_WEBHOOK_ALLOW_PRIVATE: '1',
      BROWSERFN_WEBHOOK_RETRY_BASE_MS: '100',
      // Retries at 0.1, 0.2, 0.4… s, then every 5 s, for 50 attempts: quick, and pending long enough to outlast a restart.
      BROWSERFN_WEBHOOK_MAX_RETRY_DELAY_MS: '5000',
      BROWSERFN_WEBHOOK_MAX_ATTEMPTS: '50',
      BROWSERFN_MAX_CONCURRENT_INVOCATIONS: '1',
    });
    receiver = await startReceiver();
    sdk = sdkClient(svc.apiKey, svc.url);
    bb = sdk.client;
  });
  after(async () => {
    await sdk?.close();
    await svc?.stop();
    await receiver?.close();
  });

  const deliveries = async (webhookId: string) => (await svc.request('GET', `/v1/webhooks/${webhookId}/deliveries?limit=100`)).body.data as {
    id: string;
    type: string;
    resourceId: string;
    status: string;
    attempts: { statusCode?: number; error?: string }[];
  }[];

  it("delivers a build's and an invocation's events, each verifying with the standardwebhooks package", async () => {
    const hook = await bb.webhooks.create({ endpoint: `${receiver.url}/all`, eventTypes: [...ALL] });
    const build = await publish(svc, writeProject({ 'index.ts': FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    fnId = build.builtFunctions![0].id;
    const builds = await receiver.until('the build events', (rs) => at('/all', build.id)(rs).length >= 2);
    assert.deepEqual(types(at('/all', build.id)(builds)), ['functions.builds.completed', 'functions.builds.running']);

    const inv = await invokeAndWait(svc, fnId, { params: {} });
    assert.equal(inv.status, 'COMPLETED');
    const got = at('/all', inv.id)(await receiver.until('the invocation events', (rs) => at('/all', inv.id)(rs).length >= 3));
    assert.deepEqual(types(got), ['functions.invocations.completed', 'functions.invocations.pending', 'functions.invocations.running']);
    const verifier = new Webhook(hook.secret);
    for (const r of got) {
      const verified = verifier.verify(r.body, r.headers) as Envelope;
      assert.deepEqual(Object.keys(verified), ['id', 'type', 'resourceId', 'data']);
      assert.equal(verified.id, r.headers['webhook-id']);
      assert.equal(verified.resourceId, inv.id);
      assert.equal(verified.data.id, inv.id);
      assert.equal(verified.data.status, verified.type.split('.').at(-1)!.toUpperCase());
      assert.equal(r.headers['content-type'], 'application/json');
    }
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, 3, 'one ID per event');
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got[0].body, got[0].headers), /No matching signature/);

    const recorded = await waitFor('the deliveries recorded as delivered', async () => {
      const list = (await deliveries(hook.id)).filter((d) => d.resourceId === inv.id);
      return list.length === 3 && list.every((d) => d.status === 'delivered') ? list : undefined;
    });
    for (const d of recorded) assert.deepEqual(d.attempts.map((a) => a.statusCode), [200]);
  });

  it('retries an answer of 500 with the same event ID and records every attempt', async () => {
    const hook = await bb.webhooks.create({ endpoint: `${receiver.url}/flaky`, eventTypes: ['functions.invocations.completed'] });
    let failed = 0;
    receiver.answer((r) => (r.path === '/flaky' && failed++ < 2 ? 500 : 200));
    const inv = await invokeAndWait(svc, fnId, { params: {} });
    const got = at('/flaky', inv.id)(await receiver.until('three attempts at the flaky endpoint', (rs) => at('/flaky', inv.id)(rs).length >= 3));
    assert.deepEqual(got.map((r) => r.answered), [500, 500, 200]);
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, 1, 'every attempt carries the event ID');
    for (const r of got) new Webhook(hook.secret).verify(r.body, r.headers);
    const [delivery] = await waitFor('the delivery recorded as delivered', async () => {
      const list = await deliveries(hook.id);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    assert.deepEqual(delivery.attempts.map((a) => [a.statusCode, a.error]), [[500, 'The receiver answered 500'], [500, 'The receiver answered 500'], [200, undefined]]);
    receiver.answer(() => 200);
  });

  it('signs with the old secret too after a rotation, and only with the new one after a revoke', async () => {
    const hook = await bb.webhooks.create({ endpoint: `${receiver.url}/rotate`, eventTypes: ['functions.invocations.completed'] });
    const rotated = await bb.webhooks.rotateSecret(hook.id);
    const first = await invokeAndWait(svc, fnId, { params: {} });
    const [graced] = at('/rotate', first.id)(await receiver.until('a delivery after the rotation', (rs) => at('/rotate', first.id)(rs).length >= 1));
    new Webhook(rotated.secret).verify(graced.body, graced.headers);
    new Webhook(hook.secret).verify(graced.body, graced.headers);
    assert.equal(graced.headers['webhook-signature'].split(' ').length, 2);

    const revoked = await bb.webhooks.rotateSecret(hook.id, { revokeImmediately: true });
    const second = await invokeAndWait(svc, fnId, { params: {} });
    const [after] = at('/rotate', second.id)(await receiver.until('a delivery after the revoke', (rs) => at('/rotate', second.id)(rs).length >= 1));
    new Webhook(revoked.secret).verify(after.body, after.headers);
    assert.throws(() => new Webhook(rotated.secret).verify(after.body, after.headers), /No matching signature/);
    assert.throws(() => new Webhook(hook.secret).verify(after.body, after.headers), /No matching signature/);
  });

  it('sends a cancelled invocation as functions.invocations.failed with cause CANCELLED', async () => {
    await bb.webhooks.create({ endpoint: `${receiver.url}/failed`, eventTypes: ['functions.invocations.failed'] });
    const hold = await startHoldServer();
    try {
      const created = await svc.request('POST', `/v1/functions/${fnId}/invoke`, { params: { url: hold.url } });
      assert.equal(created.status, 202);
      await hold.arrived(1);
      assert.equal((await svc.request('POST', `/v1/functions/invocations/${created.body.id}/cancel`)).status, 200);
      const [failed] = at('/failed', created.body.id)(await receiver.until('the failed event', (rs) => at('/failed', created.body.id)(rs).length >= 1));
      assert.equal(envelope(failed).type, 'functions.invocations.failed');
      assert.equal(envelope(failed).data.cause?.code, 'CANCELLED');
    } finally {
      hold.release();
      await hold.close();
    }
  });

  it('sends undelivered events after a restart, and never sends a delivered one again', async () => {
    const hook = await bb.webhooks.create({ endpoint: `${receiver.url}/restart`, eventTypes: ['functions.invocations.pending', 'functions.invocations.completed'] });
    receiver.answer((r) => (r.path === '/restart' ? 503 : 200));
    const inv = await invokeAndWait(svc, fnId, { params: {} });
    await receiver.until('both events refused at least once', (rs) => new Set(at('/restart', inv.id)(rs).map((r) => envelope(r).type)).size === 2);
    const before = await waitFor('both deliveries recorded as pending with a failed attempt', async () => {
      const list = await deliveries(hook.id);
      return list.length === 2 && list.every((d) => d.attempts.length > 0) ? list : undefined;
    });
    assert.deepEqual(before.map((d) => d.status), ['pending', 'pending']);
    await svc.restart();
    receiver.answer(() => 200);
    const answered = (rs: Received[]) => at('/restart', inv.id)(rs).filter((r) => r.answered === 200);
    await receiver.until('both events delivered after the restart', (rs) => answered(rs).length >= 2);
    await waitFor('the deliveries recorded as delivered', async () => ((await deliveries(hook.id)).every((d) => d.status === 'delivered') ? true : undefined));
    for (const r of answered(receiver.received)) new Webhook(hook.secret).verify(r.body, r.headers);
    // Every delivery made before the restart (the /all webhook's, among others) was accepted once, and only once.
    const accepted = new Map<string, number>();
    for (const r of receiver.received.filter((x) => x.answered === 200)) accepted.set(`${r.path} ${r.headers['webhook-id']}`, (accepted.get(`${r.path} ${r.headers['webhook-id']}`) ?? 0) + 1);
    assert.deepEqual([...accepted].filter(([, n]) => n > 1), []);
    assert.ok(at('/all')(receiver.received).length >= 5);
  });
});
