// Project secrets over HTTP: the key pair, both sealed forms, names, 409 on a duplicate name,
// get/patch/delete, project isolation — and values never in a response.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { KEYS, PROJECTS, sealBound, sealCompat, secretValueFor, startHarness, type Harness } from './harness.js';
import { resolveFunctionSecrets } from '../../src/secrets/resolve.js';
import { sealValue, UNBOUND } from '../../src/secrets/hpke.js';

describe('project secrets API', function () {
  let h: Harness;

  before(async () => {
    h = await startHarness();
  });
  after(async () => h?.stop());

  const assertErrorBody = (body: Record<string, unknown>, status: number) => {
    assert.deepEqual(Object.keys(body).sort(), ['error', 'message', 'statusCode']);
    assert.equal(body.statusCode, status);
  };

  it('serves a stable X25519 public key per project with the suite, different across projects', async () => {
    const first = await h.request('GET', '/v1/secrets/keypair');
    assert.equal(first.status, 200);
    assert.equal(Buffer.from(first.body.publicKey, 'base64').length, 32);
    assert.match(first.body.id, /^[0-9a-f-]{36}$/);
    assert.equal(first.body.projectId, PROJECTS.a);
    assert.deepEqual(first.body.suite, { mode: 'base', kem: 'DHKEM(X25519, HKDF-SHA256)', kdf: 'HKDF-SHA256', aead: 'AES-256-GCM', kemId: 32, kdfId: 1, aeadId: 2 });
    const again = await h.request('GET', '/v1/secrets/keypair');
    assert.deepEqual(again.body, first.body);
    const other = await h.request('GET', '/v1/secrets/keypair', undefined, KEYS.b);
    assert.notEqual(other.body.publicKey, first.body.publicKey);
    assert.notEqual(other.body.id, first.body.id);
  });

  it('creates a secret from the public clients\' sealedSecretValue form and shows only id and secretKey', async () => {
    const value = secretValueFor('compat');
    const created = await h.createSecret('COMPAT_TOKEN', value);
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), ['id', 'secretKey']);
    assert.equal(created.body.secretKey, 'COMPAT_TOKEN');
    const got = await h.request('GET', `/v1/secrets/${created.body.id}`);
    assert.deepEqual(got.body, created.body);
    const fn = await h.createFunction('compat-reader');
    assert.equal((await h.request('POST', `/v1/functions/${fn.metadata.uid}/secrets`, { secretId: created.body.id })).status, 204);
    assert.deepEqual(await resolveFunctionSecrets(h.cluster, PROJECTS.a, await h.getFunction(fn)), { COMPAT_TOKEN: value });
    assert.ok(!h.responses.some((text) => text.includes(value)));
  });

  it('creates a secret from the bound encapsulatedKey + sealedValue form; a value bound to another name or project does not open', async () => {
    const keypair = (await h.request('GET', '/v1/secrets/keypair')).body;
    const value = secretValueFor('bound');
    const sealed = await sealBound(keypair.publicKey, PROJECTS.a, 'BOUND_TOKEN', value);

    const wrongName = await h.request('POST', '/v1/secrets', { secretKey: 'OTHER_NAME', keypairId: keypair.id, ...sealed });
    assert.equal(wrongName.status, 400);
    assert.match(wrongName.body.message, /does not open.*aad "proj-a\/OTHER_NAME"/);
    const wrongProject = await sealBound(keypair.publicKey, PROJECTS.b, 'BOUND_TOKEN', value);
    assert.equal((await h.request('POST', '/v1/secrets', { secretKey: 'BOUND_TOKEN', ...wrongProject })).status, 400);

    const created = await h.request('POST', '/v1/secrets', { secretKey: 'BOUND_TOKEN', keypairId: keypair.id, ...sealed });
    assert.equal(created.status, 201, created.text);
    const fn = await h.createFunction('bound-reader');
    await h.request('POST', `/v1/functions/${fn.metadata.uid}/secrets`, { secretId: created.body.id });
    assert.deepEqual(await resolveFunctionSecrets(h.cluster, PROJECTS.a, await h.getFunction(fn)), { BOUND_TOKEN: value });
  });

  it('keeps one secretKey per project (409) while another project may use the same name', async () => {
    assert.equal((await h.createSecret('SHARED_NAME', 'one')).status, 201);
    const dup = await h.createSecret('SHARED_NAME', 'two');
    assert.equal(dup.status, 409);
    assertErrorBody(dup.body, 409);
    assert.match(dup.body.message, /SHARED_NAME already exists/);
    assert.equal((await h.createSecret('SHARED_NAME', 'three', KEYS.b)).status, 201);
    // Names are case-sensitive, like environment variables.
    assert.equal((await h.createSecret('shared_name', 'four')).status, 201);
    // Simultaneous creates of one name: exactly one wins.
    const raced = await Promise.all(Array.from({ length: 6 }, (_, i) => h.createSecret('RACED_NAME', `raced-${i}`)));
    assert.deepEqual(raced.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
  });

  it('refuses names that are not environment-variable-like, saying what is allowed', async () => {
    for (const bad of ['', '1ABC', 'WITH-DASH', 'with space', 'DOT.NAME', 'ÜBER', 'A'.repeat(129)]) {
      const res = await h.createSecret(bad, 'x');
      assert.equal(res.status, 400, JSON.stringify(bad));
      assertErrorBody(res.body, 400);
      assert.match(res.body.message, /A-Z, a-z, 0-9 and _, not starting with a digit/);
    }
    for (const good of ['_PRIVATE', 'a', 'Mixed_Case_9', 'B'.repeat(128)]) assert.equal((await h.createSecret(good, 'x')).status, 201, good);
  });

  it('refuses sealed values that are malformed, sealed to another key, or carry a stale keypairId', async () => {
    const keypair = (await h.request('GET', '/v1/secrets/keypair')).body;
    const otherKey = (await h.request('GET', '/v1/secrets/keypair', undefined, KEYS.b)).body;
    const sealedForB = await sealCompat(otherKey.publicKey, 'x');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ secretKey: 'BAD_1' }, /either as sealedSecretValue alone, or as encapsulatedKey together with sealedValue/],
      [{ secretKey: 'BAD_2', sealedSecretValue: 'not base64!' }, /sealedSecretValue must be standard base64/],
      [{ secretKey: 'BAD_3', sealedSecretValue: Buffer.alloc(40).toString('base64') }, /32-byte encapsulated key followed by the ciphertext/],
      [{ secretKey: 'BAD_4', sealedSecretValue: sealedForB }, /does not open with this project's key/],
      [{ secretKey: 'BAD_5', sealedSecretValue: await sealCompat(keypair.publicKey, 'x'), keypairId: otherKey.id }, /keypairId .* is not this project's key pair/],
      [{ secretKey: 'BAD_6', encapsulatedKey: Buffer.alloc(31).toString('base64'), sealedValue: Buffer.alloc(20).toString('base64') }, /encapsulatedKey is 31 bytes/],
      [{ secretKey: 'BAD_7', encapsulatedKey: Buffer.alloc(32).toString('base64') }, /together with sealedValue/],
      [{ secretKey: 'BAD_8', sealedSecretValue: await sealCompat(keypair.publicKey, 'x'), sealedValue: 'AAAA' }, /either as sealedSecretValue alone/],
      [{ secretKey: 'BAD_9', value: 'plaintext' }, /unknown property "value"/],
    ];
    for (const [body, message] of cases) {
      const res = await h.request('POST', '/v1/secrets', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assertErrorBody(res.body, 400);
      assert.match(res.body.message, message);
    }
    // Tampering with the ciphertext is caught by the AEAD tag.
    const good = Buffer.from(await sealCompat(keypair.publicKey, 'tamper me'), 'base64');
    good[good.length - 1]! ^= 1;
    assert.equal((await h.request('POST', '/v1/secrets', { secretKey: 'TAMPERED', sealedSecretValue: good.toString('base64') })).status, 400);
    // None of the refused names were stored.
    const names = (await h.request('GET', '/v1/secrets?limit=1000')).body.data.map((s: { secretKey: string }) => s.secretKey);
    assert.ok(!names.some((n: string) => n.startsWith('BAD_') || n === 'TAMPERED'));
  });

  it('takes UTF-8 text values up to 64 KiB', async () => {
    const keypair = (await h.request('GET', '/v1/secrets/keypair')).body;
    const largest = 'é'.repeat(32 * 1024);
    assert.equal((await h.createSecret('LARGEST', largest)).status, 201);
    const tooLarge = await h.createSecret('TOO_LARGE', largest + 'x');
    assert.equal(tooLarge.status, 400);
    assert.match(tooLarge.body.message, /65537 bytes; the limit is 65536 bytes/);
    const { enc, ciphertext } = await sealValue(new Uint8Array(Buffer.from(keypair.publicKey, 'base64')), new Uint8Array([0xff, 0xfe, 0x41]), UNBOUND);
    const notText = await h.request('POST', '/v1/secrets', { secretKey: 'NOT_TEXT', sealedSecretValue: Buffer.concat([enc, ciphertext]).toString('base64') });
    assert.equal(notText.status, 400);
    assert.match(notText.body.message, /UTF-8 text/);
    const fn = await h.createFunction('large-reader');
    const id = (await h.request('GET', '/v1/secrets?limit=1000')).body.data.find((s: { secretKey: string }) => s.secretKey === 'LARGEST').id;
    await h.request('POST', `/v1/functions/${fn.metadata.uid}/secrets`, { secretId: id });
    assert.equal((await resolveFunctionSecrets(h.cluster, PROJECTS.a, await h.getFunction(fn))).LARGEST, largest);
  });

  it('replaces a value with PATCH keeping the ID and attachments; invocations read the new value', async () => {
    const created = await h.createSecret('ROTATED', secretValueFor('old'));
    const fn = await h.createFunction('rotation-reader');
    await h.request('POST', `/v1/functions/${fn.metadata.uid}/secrets`, { secretId: created.body.id });
    const keypair = (await h.request('GET', '/v1/secrets/keypair')).body;
    const newValue = secretValueFor('new');

    const patched = await h.request('PATCH', `/v1/secrets/${created.body.id}`, { sealedSecretValue: await sealCompat(keypair.publicKey, newValue), keypairId: keypair.id });
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.body, created.body);
    assert.deepEqual(await resolveFunctionSecrets(h.cluster, PROJECTS.a, await h.getFunction(fn)), { ROTATED: newValue });

    const boundValue = secretValueFor('bound-new');
    const bound = await h.request('PATCH', `/v1/secrets/${created.body.id}`, await sealBound(keypair.publicKey, PROJECTS.a, 'ROTATED', boundValue));
    assert.equal(bound.status, 200);
    assert.deepEqual(await resolveFunctionSecrets(h.cluster, PROJECTS.a, await h.getFunction(fn)), { ROTATED: boundValue });

    assert.equal((await h.request('PATCH', `/v1/secrets/${created.body.id}`, {})).status, 400);
    const listed = (await h.request('GET', `/v1/functions/${fn.metadata.uid}/secrets`)).body;
    assert.deepEqual(listed.data, [created.body]);
  });

  it('deletes a secret, detaching it from every Function; later reads are 404', async () => {
    const created = await h.createSecret('DOOMED', secretValueFor('doomed'));
    const fns = [await h.createFunction('doomed-reader-1'), await h.createFunction('doomed-reader-2')];
    for (const fn of fns) await h.request('POST', `/v1/functions/${fn.metadata.uid}/secrets`, { secretId: created.body.id });

    const deleted = await h.request('DELETE', `/v1/secrets/${created.body.id}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    for (const fn of fns) {
      const current = await h.getFunction(fn);
      assert.deepEqual(current.spec.secrets, []);
      assert.deepEqual(await resolveFunctionSecrets(h.cluster, PROJECTS.a, current), {});
    }
    for (const method of ['GET', 'DELETE', 'PATCH']) {
      const res = await h.request(method, `/v1/secrets/${created.body.id}`, method === 'PATCH' ? { sealedSecretValue: 'AAAA' } : undefined);
      assert.equal(res.status, 404, method);
      assertErrorBody(res.body, 404);
    }
    // The name is free again, under a new ID.
    const again = await h.createSecret('DOOMED', 'reborn');
    assert.equal(again.status, 201);
    assert.notEqual(again.body.id, created.body.id);
  });

  it("never reaches another project's secret (404), and 400 for a non-UUID ID", async () => {
    const theirs = await h.createSecret('THEIRS', secretValueFor('theirs'), KEYS.b);
    const keypair = (await h.request('GET', '/v1/secrets/keypair')).body;
    assert.equal((await h.request('GET', `/v1/secrets/${theirs.body.id}`)).status, 404);
    assert.equal((await h.request('PATCH', `/v1/secrets/${theirs.body.id}`, { sealedSecretValue: await sealCompat(keypair.publicKey, 'x') })).status, 404);
    assert.equal((await h.request('DELETE', `/v1/secrets/${theirs.body.id}`)).status, 404);
    assert.equal((await h.request('GET', `/v1/secrets/${theirs.body.id}`, undefined, KEYS.b)).status, 200);
    assert.equal((await h.request('GET', `/v1/secrets/${randomUUID()}`)).status, 404);
    for (const bad of ['nope', '123', `urn:uuid:${randomUUID()}`]) {
      const res = await h.request('GET', `/v1/secrets/${encodeURIComponent(bad)}`);
      assert.equal(res.status, 400, bad);
      assertErrorBody(res.body, 400);
    }
    const mine = (await h.request('GET', '/v1/secrets?limit=1000')).body.data.map((s: { id: string }) => s.id);
    assert.ok(!mine.includes(theirs.body.id));
  });

  it('needs the API key', async () => {
    for (const [method, path] of [['GET', '/v1/secrets'], ['POST', '/v1/secrets'], ['GET', '/v1/secrets/keypair'], ['GET', `/v1/functions/${randomUUID()}/secrets`]] as const) {
      const res = await fetch(h.url + path, { method });
      assert.equal(res.status, 401, `${method} ${path}`);
    }
  });
});
