// The unmodified public REST client (@browserbasehq/sdk) manages webhooks against a real `serve`:
// create (secret shown once), list newest first with cursors, retrieve, update, rotate, delete; and
// what registration refuses (unknown event types, private or non-https endpoints without
// BROWSERFN_WEBHOOK_ALLOW_PRIVATE, a second registration of an endpoint), other projects' 404s, and
// the routes in the OpenAPI document.
import assert from 'node:assert/strict';
import type Browserbase from '@browserbasehq/sdk';
import { startTestService, type TestService } from '../support/service.js';
import { sdkClient, type SdkClient } from './sdk.js';

describe('webhooks through @browserbasehq/sdk (serve)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let bb: Browserbase;
  let other: Browserbase;
  const clients: SdkClient[] = [];

  before(async () => {
    svc = await startTestService({}, { captureLog: true });
    clients.push(sdkClient(svc.apiKey, svc.url), sdkClient('other-key', svc.url));
    [bb, other] = clients.map((c) => c.client);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await svc?.stop();
  });

  /** Every signing secret the API showed, to look for in the service's log at the end. */
  const shown: string[] = [];
  const refusal = async (call: Promise<unknown>): Promise<{ status: number; message: string }> => {
    const err = await call.then(
      () => assert.fail('expected the call to be refused'),
      (e: unknown) => e as { status: number; error: { message: string } },
    );
    return { status: err.status, message: err.error?.message ?? '' };
  };

  it('creates, retrieves, updates, rotates and deletes a webhook; the secret appears only on create and rotate', async () => {
    const created = await bb.webhooks.create({ endpoint: 'https://hooks.example.com/browserfn', eventTypes: ['functions.invocations.completed'] });
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    shown.push(created.secret);
    assert.equal(created.projectId, 'default');
    assert.deepEqual(created.eventTypes, ['functions.invocations.completed']);
    assert.equal(created.endpoint, 'https://hooks.example.com/browserfn');

    const got = await bb.webhooks.retrieve(created.id);
    assert.deepEqual(got, { id: created.id, projectId: 'default', endpoint: created.endpoint, eventTypes: created.eventTypes, createdAt: created.createdAt, updatedAt: created.updatedAt });
    assert.ok(!('secret' in got));

    const updated = await bb.webhooks.update(created.id, { eventTypes: ['functions.builds.failed', 'functions.invocations.failed'] });
    assert.equal(updated.endpoint, created.endpoint, 'an omitted endpoint stays');
    assert.deepEqual(updated.eventTypes, ['functions.builds.failed', 'functions.invocations.failed'], 'eventTypes replaces the subscription');
    const moved = await bb.webhooks.update(created.id, { endpoint: 'https://hooks.example.com/v2' });
    assert.deepEqual(moved.eventTypes, updated.eventTypes, 'omitted eventTypes stay');
    assert.equal(moved.endpoint, 'https://hooks.example.com/v2');

    const rotated = await bb.webhooks.rotateSecret(created.id);
    assert.match(rotated.secret, /^whsec_/);
    assert.notEqual(rotated.secret, created.secret);
    const revoked = await bb.webhooks.rotateSecret(created.id, { revokeImmediately: true });
    shown.push(rotated.secret, revoked.secret);
    assert.notEqual(revoked.secret, rotated.secret);
    const listed = await bb.webhooks.list();
    assert.ok(!JSON.stringify(listed).includes('whsec_'), 'no listing carries a secret');

    await bb.webhooks.delete(created.id);
    assert.equal((await refusal(bb.webhooks.retrieve(created.id))).status, 404);
    assert.equal((await refusal(bb.webhooks.delete(created.id))).status, 404);
  });

  it('updates by POST to the webhook as it does by PATCH, with the same checks', async () => {
    const hook = await bb.webhooks.create({ endpoint: 'https://hooks.example.com/by-post', eventTypes: ['functions.builds.completed'] });
    const changed = await svc.request('POST', `/v1/webhooks/${hook.id}`, { eventTypes: ['functions.invocations.failed'] });
    assert.equal(changed.status, 200);
    assert.deepEqual(changed.body.eventTypes, ['functions.invocations.failed']);
    assert.deepEqual((await bb.webhooks.retrieve(hook.id)).eventTypes, ['functions.invocations.failed']);
    const refused = await svc.request('POST', `/v1/webhooks/${hook.id}`, { eventTypes: ['functions.nope'] });
    assert.equal(refused.status, 400);
    assert.deepEqual((await bb.webhooks.retrieve(hook.id)).eventTypes, ['functions.invocations.failed'], 'a refused update changes nothing');
    await bb.webhooks.delete(hook.id);
  });

  it('lists newest first in pages joined by nextCursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await bb.webhooks.create({ endpoint: `https://hooks.example.com/page-${i}`, eventTypes: ['functions.builds.completed'] })).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await bb.webhooks.list({ limit: 2, ...(cursor ? { cursor } : {}) });
      assert.equal(page.limit, 2);
      assert.ok(page.data.length <= 2);
      seen.push(...page.data.map((w) => w.id));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    assert.deepEqual(seen, [...ids].reverse());
    assert.equal((await refusal(bb.webhooks.list({ cursor: 'forged.cursor' }))).status, 400);
    for (const id of ids) await bb.webhooks.delete(id);
  });

  it('refuses unknown event types with a 400 that names the allowed ones', async () => {
    const { status, message } = await refusal(bb.webhooks.create({ endpoint: 'https://hooks.example.com/x', eventTypes: ['functions.invocations.exploded' as 'functions.invocations.failed'] }));
    assert.equal(status, 400);
    assert.match(message, /"functions\.invocations\.exploded"/);
    assert.match(message, /functions\.builds\.running, functions\.builds\.completed, functions\.builds\.failed, functions\.invocations\.pending, functions\.invocations\.running, functions\.invocations\.completed, functions\.invocations\.failed/);
    assert.equal((await refusal(bb.webhooks.create({ endpoint: 'https://hooks.example.com/x', eventTypes: [] }))).status, 400);
  });

  it('refuses private, internal and plain-http endpoints without BROWSERFN_WEBHOOK_ALLOW_PRIVATE, and a second registration of an endpoint', async () => {
    const cases: [string, RegExp][] = [
      ['https://127.0.0.1:8443/hook', /loopback address; set BROWSERFN_WEBHOOK_ALLOW_PRIVATE=1/],
      ['https://169.254.169.254/latest', /link-local address/],
      ['https://[::ffff:10.0.0.1]/hook', /private address/],
      ['https://localhost/hook', /loopback interface/],
      ['http://hooks.example.com/hook', /must use https:\/\/ \(http:\/\/ is accepted only when set BROWSERFN_WEBHOOK_ALLOW_PRIVATE=1/],
      ['ftp://hooks.example.com/hook', /must use https:\/\//],
      ['not a url', /not an absolute URL/],
      ['https://user:pw@hooks.example.com/hook', /user name or password/],
    ];
    for (const [endpoint, expected] of cases) {
      const { status, message } = await refusal(bb.webhooks.create({ endpoint, eventTypes: ['functions.builds.completed'] }));
      assert.equal(status, 400, endpoint);
      assert.match(message, expected, endpoint);
    }
    const first = await bb.webhooks.create({ endpoint: 'https://hooks.example.com/once', eventTypes: ['functions.builds.completed'] });
    const again = await refusal(bb.webhooks.create({ endpoint: 'https://hooks.example.com/once', eventTypes: ['functions.builds.failed'] }));
    assert.equal(again.status, 409);
    assert.match(again.message, new RegExp(`already registered in this project \\(webhook ${first.id}\\)`));
    const second = await bb.webhooks.create({ endpoint: 'https://hooks.example.com/other', eventTypes: ['functions.builds.completed'] });
    assert.equal((await refusal(bb.webhooks.update(second.id, { endpoint: 'https://hooks.example.com/once' }))).status, 409);
    assert.equal((await refusal(bb.webhooks.update(second.id, { endpoint: 'https://10.1.2.3/x' }))).status, 400);
    await bb.webhooks.delete(first.id);
    await bb.webhooks.delete(second.id);
  });

  it("answers 404 for another project's webhook on every route, and keeps listings apart", async () => {
    const mine = await bb.webhooks.create({ endpoint: 'https://hooks.example.com/mine', eventTypes: ['functions.builds.completed'] });
    assert.equal((await refusal(other.webhooks.retrieve(mine.id))).status, 404);
    assert.equal((await refusal(other.webhooks.update(mine.id, { eventTypes: ['functions.builds.failed'] }))).status, 404);
    assert.equal((await refusal(other.webhooks.rotateSecret(mine.id))).status, 404);
    assert.equal((await refusal(other.webhooks.delete(mine.id))).status, 404);
    assert.equal((await svc.request('GET', `/v1/webhooks/${mine.id}/deliveries`, undefined, { 'x-svc-api-key': 'other-key' })).status, 404);
    assert.deepEqual((await other.webhooks.list()).data, []);
    // The same endpoint in another project is that project's own registration.
    const theirs = await other.webhooks.create({ endpoint: 'https://hooks.example.com/mine', eventTypes: ['functions.builds.completed'] });
    assert.equal(theirs.projectId, 'other');
    assert.deepEqual((await bb.webhooks.retrieve(mine.id)).eventTypes, ['functions.builds.completed'], 'untouched by the other project');
    await other.webhooks.delete(theirs.id);
    await bb.webhooks.delete(mine.id);
  });

  it('documents every webhook route in the OpenAPI document', async () => {
    const doc = (await (await fetch(svc.url + '/v1/openapi.json')).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    assert.equal(doc.paths['/v1/webhooks'].post.operationId, 'Webhooks_create');
    assert.equal(doc.paths['/v1/webhooks'].get.operationId, 'Webhooks_list');
    assert.equal(doc.paths['/v1/webhooks/{id}'].get.operationId, 'Webhooks_retrieve');
    assert.equal(doc.paths['/v1/webhooks/{id}'].patch.operationId, 'Webhooks_update');
    assert.equal(doc.paths['/v1/webhooks/{id}'].post.operationId, 'Webhooks_updateByPost');
    assert.equal(doc.paths['/v1/webhooks/{id}'].delete.operationId, 'Webhooks_delete');
    assert.equal(doc.paths['/v1/webhooks/{id}/secret'].post.operationId, 'Webhooks_rotateSecret');
    assert.equal(doc.paths['/v1/webhooks/{id}/deliveries'].get.operationId, 'Webhooks_listDeliveries');
  });

  it('never logs a signing secret', () => {
    assert.ok(svc.logLines.length > 0 && svc.logLines.some((line) => line.includes('webhook registered')), 'the log was captured');
    for (const secret of shown) assert.ok(!svc.logLines.some((line) => line.includes(secret.slice(6))), 'a signing secret is in the log');
  });
});
