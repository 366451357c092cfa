// Webhook registrations that race, over the real embedded store: the per-project cap and the one
// webhook per endpoint hold however registrations and endpoint changes interleave, a refused one
// leaves nothing behind, what a deleted (or lingering) webhook held is free again, and webhooks
// registered before claims existed are given theirs.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { isDomainError } from '../../src/domain/errors.js';
import { Labels, Roles } from '../../src/schemas/resources.js';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook } from '../../src/webhooks/store.js';

const ROUNDS = 8;

describe('webhook registrations that race (embedded store)', () => {
  let cluster: ClusterPort;
  let projects = 0;
  const newProject = () => `races-${++projects}`;
  const register = (project: string, endpoint: string, max?: number) =>
    createWebhook(cluster, project, { endpoint: `https://receiver.example.test/${endpoint}`, eventTypes: ['functions.builds.completed'] }, false, max);
  const settle = <T>(all: Promise<T>[]) => Promise.allSettled(all);
  const fulfilled = <T>(results: PromiseSettledResult<T>[]) => results.filter((r) => r.status === 'fulfilled');
  const refusals = <T>(results: PromiseSettledResult<T>[]) => results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
  const claims = async (project: string) => (await cluster.resource(Kinds.ConfigMap).list(project, { labelSelector: `${Labels.role}=${Roles.webhookClaim}` })).items;

  before(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
  });
  after(async () => {
    await cluster.close();
  });

  it('refuses a webhook past the per-project cap with a 409 that says what to do, also when registrations race', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const project = newProject();
      await register(project, 'cap-0', 3);
      const racing = await settle([1, 2, 3, 4, 5].map((n) => register(project, `cap-${n}`, 3)));
      assert.equal(fulfilled(racing).length, 2, `round ${round}: two of the racing registrations fit under the cap of 3`);
      for (const refused of refusals(racing)) {
        assert.ok(isDomainError(refused, 'conflict'), String(refused));
        assert.match(refused.message, /has 3 webhooks.*BROWSERFN_WEBHOOK_MAX_PER_PROJECT.*delete one/);
      }
      assert.equal((await listWebhooks(cluster, project)).length, 3, 'nothing of a refused registration is left');
      assert.equal((await cluster.resource(Kinds.Secret).list(project)).items.length, 3, 'nor a signing secret');
      assert.equal((await claims(project)).length, 6, 'nor a claim: a slot and an endpoint for each of the three');
    }
  });

  it('registers one endpoint once when registrations of it race', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const project = newProject();
      const racing = await settle([1, 2, 3, 4].map(() => register(project, 'same')));
      assert.equal(fulfilled(racing).length, 1, `round ${round}`);
      const [kept] = await listWebhooks(cluster, project);
      for (const refused of refusals(racing)) {
        assert.ok(isDomainError(refused, 'conflict'), String(refused));
        assert.match(refused.message, new RegExp(`already registered in this project \\(webhook ${kept!.record.id}\\)`));
      }
      assert.equal((await listWebhooks(cluster, project)).length, 1);
    }
  });

  it('gives an endpoint to one webhook when a change to it races its registration', async () => {
    const endpoint = 'https://receiver.example.test/contested';
    for (let round = 0; round < ROUNDS; round++) {
      const project = newProject();
      const { record: moving } = await register(project, 'before');
      const [moved, registered] = await Promise.allSettled([
        updateWebhook(cluster, project, moving.id, { endpoint }, false),
        createWebhook(cluster, project, { endpoint, eventTypes: ['functions.builds.completed'] }, false),
      ]);
      assert.equal([moved, registered].filter((r) => r.status === 'fulfilled').length, 1, `round ${round}: exactly one of them has it`);
      const holders = (await listWebhooks(cluster, project)).filter((w) => w.record.endpoint === endpoint);
      assert.equal(holders.length, 1, `round ${round}`);
      if (moved.status === 'rejected') assert.equal((await getWebhook(cluster, project, moving.id)).record.endpoint, 'https://receiver.example.test/before', 'a refused change changes nothing');
    }
  });

  it('counts webhooks registered before claims existed when registrations race: they are given their claims', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const project = newProject();
      await register(project, 'old-0', 3);
      await register(project, 'old-1', 3);
      for (const held of await claims(project)) await cluster.resource(Kinds.ConfigMap).delete(project, held.metadata.name);
      const racing = await settle([1, 2, 3, 4].map((n) => register(project, `new-${n}`, 3)));
      assert.equal(fulfilled(racing).length, 1, `round ${round}: one of the racing registrations fits beside the two unclaimed webhooks`);
      for (const refused of refusals(racing)) assert.ok(isDomainError(refused, 'conflict'), String(refused));
      const live = await listWebhooks(cluster, project);
      assert.equal(live.length, 3);
      const held = await claims(project);
      for (const { object } of live) {
        const owned = held.filter((c) => c.metadata.ownerReferences?.[0]?.uid === object.metadata.uid).map((c) => c.metadata.name);
        assert.equal(owned.filter((name) => name.startsWith('webhook-claim-slot-')).length, 1, `round ${round}: each webhook holds one slot: ${owned}`);
        assert.equal(owned.filter((name) => name.startsWith('webhook-claim-endpoint-')).length, 1, `round ${round}: and its endpoint`);
      }
    }
  });

  it('frees what a webhook held when it moves away or is deleted, also while a deleted one lingers', async () => {
    const project = newProject();
    const { record: first } = await register(project, 'one', 2);
    const { record: second } = await register(project, 'two', 2);
    await assert.rejects(register(project, 'three', 2), /has 2 webhooks/);

    await updateWebhook(cluster, project, first.id, { endpoint: 'https://receiver.example.test/one-moved' }, false);
    const { record: third } = await createWebhook(cluster, project, { endpoint: 'https://receiver.example.test/one', eventTypes: ['functions.builds.completed'] }, false, 3);
    await assert.rejects(
      updateWebhook(cluster, project, second.id, { endpoint: 'https://receiver.example.test/one' }, false),
      new RegExp(`already registered in this project \\(webhook ${third.id}\\)`),
    );

    // A finalizer keeps the deleted webhook in the store, as the kube garbage collector's delay would.
    const lingering = (await getWebhook(cluster, project, second.id)).object;
    await cluster.resource(Kinds.ConfigMap).update({ ...lingering, metadata: { ...lingering.metadata, finalizers: ['browserfn.dev/test'] } });
    await deleteWebhook(cluster, project, second.id);
    const { record: fourth } = await createWebhook(cluster, project, { endpoint: 'https://receiver.example.test/two', eventTypes: ['functions.builds.completed'] }, false, 3);
    assert.deepEqual((await listWebhooks(cluster, project)).map((w) => w.record.id).sort(), [first.id, third.id, fourth.id].sort());
    await deleteWebhook(cluster, project, first.id);
    await register(project, 'five', 3);
  });
});
