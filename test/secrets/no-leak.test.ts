// A secret value never appears in any API response or log line, and is encrypted at rest in the
// embedded store: exercised through every secrets route, successes and failures alike.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KEYS, leakedForms, PROJECTS, sealBound, sealCompat, secretValueFor, startHarness, type Harness } from './harness.js';
import { resolveFunctionSecrets } from '../../src/secrets/resolve.js';
import { Kinds } from '../../src/cluster/objects.js';

describe('secret values never leak', function () {
  this.timeout(60_000);
  let h: Harness;

  before(async () => {
    h = await startHarness();
  });
  after(async () => h?.stop());


  it('through create, read, list, attach, rotate, refuse, detach and delete', async () => {
    const fn = await h.createFunction('leak-check');
    const values = [secretValueFor('first'), secretValueFor('second'), secretValueFor('rotated'), secretValueFor('refused')];
    const keypair = (await h.request('GET', '/v1/secrets/keypair')).body;

    const first = (await h.request('POST', '/v1/secrets', { secretKey: 'LEAK_ONE', keypairId: keypair.id, sealedSecretValue: await sealCompat(keypair.publicKey, values[0]!) })).body;
    const second = (await h.request('POST', '/v1/secrets', { secretKey: 'LEAK_TWO', ...(await sealBound(keypair.publicKey, PROJECTS.a, 'LEAK_TWO', values[1]!)) })).body;
    assert.ok(first.id && second.id);
    // Refusals: a duplicate name, a value bound to another name, another project's key.
    assert.equal((await h.request('POST', '/v1/secrets', { secretKey: 'LEAK_ONE', sealedSecretValue: await sealCompat(keypair.publicKey, values[3]!) })).status, 409);
    assert.equal((await h.request('POST', '/v1/secrets', { secretKey: 'LEAK_X', ...(await sealBound(keypair.publicKey, PROJECTS.a, 'LEAK_Y', values[3]!)) })).status, 400);
    const theirKey = (await h.request('GET', '/v1/secrets/keypair', undefined, KEYS.b)).body;
    assert.equal((await h.request('POST', '/v1/secrets', { secretKey: 'LEAK_Z', sealedSecretValue: await sealCompat(theirKey.publicKey, values[3]!) })).status, 400);

    for (const id of [first.id, second.id]) assert.equal((await h.request('POST', `/v1/functions/${fn.metadata.uid}/secrets`, { secretId: id })).status, 204);
    await h.request('GET', `/v1/secrets/${first.id}`);
    await h.request('GET', '/v1/secrets?limit=1000');
    await h.request('GET', `/v1/functions/${fn.metadata.uid}/secrets?limit=1`);
    await h.request('PATCH', `/v1/secrets/${first.id}`, { sealedSecretValue: await sealCompat(keypair.publicKey, values[2]!), keypairId: keypair.id });
    const resolved = await resolveFunctionSecrets(h.cluster, PROJECTS.a, (await h.cluster.resource(Kinds.Function).get(PROJECTS.a, fn.metadata.name)) as typeof fn);
    assert.deepEqual(resolved, { LEAK_ONE: values[2], LEAK_TWO: values[1] });
    // At rest, before deletion: the store file holds the (unencrypted) Function but no value in any form.
    const atRest = readdirSync(h.dataDir)
      .map((f) => join(h.dataDir, f))
      .filter((path) => path.includes('store.db') && statSync(path).isFile())
      .map((path) => readFileSync(path).toString('latin1'))
      .join('\n');
    assert.ok(atRest.includes('leak-check'), 'the store file was read');
    for (const value of values) for (const form of leakedForms(value)) assert.ok(!atRest.includes(form), 'value stored in the clear');

    await h.request('DELETE', `/v1/functions/${fn.metadata.uid}/secrets/${second.id}`);
    await h.request('DELETE', `/v1/secrets/${first.id}`);

    // The log was captured (and names what happened), yet holds no value.
    const logText = h.logLines.join('\n');
    for (const event of ['secret created', 'secret attached', 'secret value replaced', 'secret detached', 'secret deleted']) assert.ok(logText.includes(event), event);
    assert.ok(logText.includes('LEAK_ONE'));
    const responseText = h.responses.join('\n');
    for (const value of values) {
      for (const form of leakedForms(value)) {
        assert.ok(!logText.includes(form), 'value in the log');
        assert.ok(!responseText.includes(form), 'value in a response');
      }
    }
    // The Function object stores IDs only.
    const stored = JSON.stringify(await h.cluster.resource(Kinds.Function).list(PROJECTS.a));
    for (const value of values) assert.ok(!stored.includes(value));
  });
});
