// Attaching and detaching secrets, and what an invocation receives (resolveFunctionSecrets).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { KEYS, PROJECTS, putSecretAt, secretValueFor, startHarness, type Harness } from './harness.js';
import { resolveFunctionSecrets } from '../../src/secrets/resolve.js';
import { Kinds, type KubeObject, type ResourceType } from '../../src/cluster/objects.js';
import type { ClusterPort, ResourceClient } from '../../src/cluster/port.js';
import { attachSecret, detachSecret } from '../../src/secrets/attachments.js';
import type { FunctionObject } from '../../src/schemas/resources.js';

describe('attaching secrets to Functions', function () {
  this.timeout(60_000);
  let h: Harness;

  before(async () => {
    h = await startHarness();
  });
  after(async () => h?.stop());

  const attach = (fnId: string, secretId: unknown, key: string = KEYS.a) => h.request('POST', `/v1/functions/${fnId}/secrets`, { secretId }, key);
  const detach = (fnId: string, secretId: string, key: string = KEYS.a) => h.request('DELETE', `/v1/functions/${fnId}/secrets/${secretId}`, undefined, key);

  it('attaches (204, idempotent) and detaches (204, idempotent); only the next invocations see the change', async () => {
    const fn = await h.createFunction('attach-basics');
    const value = secretValueFor('basic');
    const secret = (await h.createSecret('BASIC', value)).body;
    assert.deepEqual(await resolveFunctionSecrets(h.cluster, PROJECTS.a, fn), {});

    for (let i = 0; i < 2; i++) {
      const res = await attach(fn.metadata.uid!, secret.id);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
    }
    let current = await h.getFunction(fn);
    assert.deepEqual(current.spec.secrets, [secret.id]);
    assert.deepEqual(await resolveFunctionSecrets(h.cluster, PROJECTS.a, current), { BASIC: value });
    // An invocation that already resolved its secrets keeps them; the stored Function holds only IDs.
    assert.ok(!JSON.stringify(current).includes(value));

    for (let i = 0; i < 2; i++) assert.equal((await detach(fn.metadata.uid!, secret.id)).status, 204);
    current = await h.getFunction(fn);
    assert.deepEqual(current.spec.secrets, []);
    assert.deepEqual(await resolveFunctionSecrets(h.cluster, PROJECTS.a, current), {});
    // Detaching something never attached, or a secret that does not exist, is also a 204.
    assert.equal((await detach(fn.metadata.uid!, randomUUID())).status, 204);
  });

  it('accepts the secret ID in upper case as the same secret', async () => {
    const fn = await h.createFunction('attach-case');
    const secret = (await h.createSecret('CASED', 'x')).body;
    assert.equal((await attach(fn.metadata.uid!, secret.id.toUpperCase())).status, 204);
    assert.equal((await attach(fn.metadata.uid!, secret.id)).status, 204);
    assert.deepEqual((await h.getFunction(fn)).spec.secrets, [secret.id]);
    assert.equal((await detach(fn.metadata.uid!, secret.id.toUpperCase())).status, 204);
    assert.deepEqual((await h.getFunction(fn)).spec.secrets, []);
  });

  it("404 for a missing secret or another project's; 404 for another project's Function; 400 for bad IDs", async () => {
    const fn = await h.createFunction('attach-errors');
    const theirs = (await h.createSecret('THEIR_SECRET', 'x', KEYS.b)).body;
    const theirFn = await h.createFunction('their-fn', PROJECTS.b);
    const mine = (await h.createSecret('MY_SECRET', 'x')).body;

    const missing = await attach(fn.metadata.uid!, randomUUID());
    assert.equal(missing.status, 404);
    assert.match(missing.body.message, /Secret .* does not exist/);
    assert.equal((await attach(fn.metadata.uid!, theirs.id)).status, 404);
    assert.equal((await attach(theirFn.metadata.uid!, mine.id)).status, 404);
    assert.equal((await attach(randomUUID(), mine.id)).status, 404);
    assert.equal((await detach(theirFn.metadata.uid!, mine.id)).status, 404);
    assert.deepEqual((await h.getFunction(fn)).spec.secrets ?? [], []);

    for (const bad of ['nope', 42, null, `urn:uuid:${mine.id}`]) assert.equal((await attach(fn.metadata.uid!, bad)).status, 400, String(bad));
    assert.equal((await h.request('POST', `/v1/functions/${fn.metadata.uid}/secrets`, {})).status, 400);
    assert.equal((await h.request('POST', `/v1/functions/${fn.metadata.uid}/secrets`, { secretId: mine.id, extra: 1 })).status, 400);
    assert.equal((await attach('not-a-uuid', mine.id)).status, 400);
    assert.equal((await detach(fn.metadata.uid!, 'not-a-uuid')).status, 400);
    assert.equal((await detach(fn.metadata.uid!, encodeURIComponent(`urn:uuid:${mine.id}`))).status, 400);
    assert.equal((await detach('not-a-uuid', mine.id)).status, 400);
  });

  it('loses no change when attach and detach requests and other Function updates run concurrently', async () => {
    const fn = await h.createFunction('attach-race');
    const secrets = [];
    for (let i = 0; i < 12; i++) secrets.push((await h.createSecret(`RACE_${i}`, `race-${i}`)).body);
    const keep = secrets.slice(0, 8);
    const drop = secrets.slice(8);
    for (const s of drop) await attach(fn.metadata.uid!, s.id);

    const functions = h.cluster.resource<FunctionObject>(Kinds.Function);
    // A concurrent writer bumping the Function (as publishing a new version would).
    const bumper = (async () => {
      for (let i = 0; i < 10; i++) {
        for (;;) {
          const current = (await functions.get(PROJECTS.a, fn.metadata.name))!;
          try {
            await functions.update({ ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, bump: String(i) } } });
            break;
          } catch (err) {
            if ((err as { reason?: string }).reason !== 'Conflict') throw err;
          }
        }
      }
    })();
    const results = await Promise.all([...keep.map((s) => attach(fn.metadata.uid!, s.id)), ...drop.map((s) => detach(fn.metadata.uid!, s.id)), bumper]);
    for (const r of results.slice(0, keep.length + drop.length)) assert.equal((r as { status: number }).status, 204);

    const current = await h.getFunction(fn);
    assert.deepEqual(new Set(current.spec.secrets), new Set(keep.map((s) => s.id)));
    assert.equal(current.metadata.annotations?.bump, '9');
    const resolved = await resolveFunctionSecrets(h.cluster, PROJECTS.a, current);
    assert.deepEqual(resolved, Object.fromEntries(keep.map((s, i) => [s.secretKey, `race-${i}`])));
  });

  it('re-reads and retries on a conflict when another writer changes the Function between read and write', async () => {
    const fn = await h.createFunction('attach-conflict');
    const [mine, theirs, third, fourth] = [
      (await h.createSecret('MINE', 'x')).body,
      (await h.createSecret('CONCURRENT', 'y')).body,
      (await h.createSecret('THIRD', 'z')).body,
      (await h.createSecret('FOURTH', 'w')).body,
    ];
    // A port whose Function updates are each preceded by another writer's update (for the first
    // `interleave` writes), so every write of ours meets a newer resourceVersion.
    let interleave = 3;
    let conflicts = 0;
    const concurrentIds = [theirs.id, third.id, fourth.id];
    const racing: ClusterPort = {
      backend: h.cluster.backend,
      close: () => h.cluster.close(),
      resource<T extends KubeObject>(type: ResourceType): ResourceClient<T> {
        const real = h.cluster.resource<T>(type);
        if (type.kind !== 'Function') return real;
        const client = Object.create(real) as ResourceClient<T>;
        client.update = async (obj: T) => {
          if (interleave-- > 0) {
            const stored = (await real.get(obj.metadata.namespace, obj.metadata.name)) as unknown as FunctionObject;
            const secrets = [...(stored.spec.secrets ?? []), concurrentIds.shift()!];
            await (real as unknown as ResourceClient<FunctionObject>).update({ ...stored, spec: { ...stored.spec, secrets } });
          }
          try {
            return await real.update(obj);
          } catch (err) {
            if ((err as { reason?: string }).reason === 'Conflict') conflicts++;
            throw err;
          }
        };
        return client;
      },
    };
    await attachSecret(racing, fn, mine.id);
    assert.equal(conflicts, 3);
    assert.deepEqual(new Set((await h.getFunction(fn)).spec.secrets), new Set([mine.id, theirs.id, third.id, fourth.id]));

    interleave = 1;
    conflicts = 0;
    concurrentIds.push((await h.createSecret('FIFTH', 'v')).body.id);
    await detachSecret(racing, fn, theirs.id);
    assert.equal(conflicts, 1);
    assert.deepEqual((await h.getFunction(fn)).spec.secrets?.length, 4);
    assert.ok(!(await h.getFunction(fn)).spec.secrets?.includes(theirs.id));
  });

  it('decides on the stored Function, not a stale copy', async () => {
    const fn = await h.createFunction('attach-stale');
    const secret = (await h.createSecret('STALE_VIEW', 'x')).body;
    const stale = await h.getFunction(fn);
    await attachSecret(h.cluster, stale, secret.id);
    // The copy still lists nothing, yet the stored Function has the secret: detach must remove it.
    await detachSecret(h.cluster, stale, secret.id);
    assert.deepEqual((await h.getFunction(fn)).spec.secrets, []);
    await attachSecret(h.cluster, { ...stale, spec: { ...stale.spec, secrets: [secret.id] } }, secret.id);
    assert.deepEqual((await h.getFunction(fn)).spec.secrets, [secret.id]);
  });

  it('resolves only attached, existing secrets, by secretKey, including odd but valid names', async () => {
    const fn = await h.createFunction('resolver');
    const a = await putSecretAt(h.cluster, PROJECTS.a, '__proto__', Date.now(), 'proto-value');
    const b = await putSecretAt(h.cluster, PROJECTS.a, 'constructor', Date.now(), 'ctor-value');
    const c = await putSecretAt(h.cluster, PROJECTS.a, 'UNATTACHED_NEIGHBOUR', Date.now(), 'nope');
    const gone = randomUUID();
    const current = await h.cluster.resource<FunctionObject>(Kinds.Function).update({ ...(await h.getFunction(fn)), spec: { ...fn.spec, secrets: [a.id, b.id, gone] } });
    const resolved = await resolveFunctionSecrets(h.cluster, PROJECTS.a, current);
    assert.deepEqual(Object.keys(resolved).sort(), ['__proto__', 'constructor']);
    assert.equal(Object.getOwnPropertyDescriptor(resolved, '__proto__')?.value, 'proto-value');
    assert.equal(resolved.constructor, 'ctor-value');
    assert.equal(JSON.parse(JSON.stringify(resolved)).__proto__, 'proto-value');
    assert.ok(!Object.values(resolved).includes('nope'));
    assert.ok(c.id);
    // Another project's resolution never sees project a's secrets, even with the same IDs attached.
    const theirs = await h.createFunction('their-resolver', PROJECTS.b);
    const crossed = await h.cluster.resource<FunctionObject>(Kinds.Function).update({ ...theirs, spec: { ...theirs.spec, secrets: [a.id, b.id] } });
    assert.deepEqual(await resolveFunctionSecrets(h.cluster, PROJECTS.b, crossed), {});
  });
});
