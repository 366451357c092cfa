// Attack: another project's objects. Project `default` (A) publishes, invokes, and keeps a secret;
// project `other` (B, key `other-key`) then tries every route that takes an ID with A's IDs. Every
// try answers 404 — the same answer as an ID that exists nowhere, so B learns nothing (detaching
// from B's own Function is idempotent: 204 for A's secret as for any) — B's lists
// show none of A's objects, and nothing of A changed.
import assert from 'node:assert/strict';
import { Kinds } from '../../src/cluster/objects.js';
import { startTestService, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';
import { sealCompat } from '../secrets/harness.js';

const FN = `
import { defineFn } from 'browserfn';
defineFn('a-private-fn', async (ctx, params: { word: string }) => {
  console.log('handling', params.word);
  return { echoed: params.word, session: ctx.session.id };
}, { parametersSchema: { type: 'object', properties: { word: { type: 'string' } } } });
`;
const B_FN = `
import { defineFn } from 'browserfn';
defineFn('b-own-fn', async () => ({ ok: true }));
`;
const B = { 'x-svc-api-key': 'other-key' };

interface Ids {
  build: string;
  fn: string;
  version: string;
  invocation: string;
  session: string;
  secret: string;
}

describe('attack: another project reaches none of a project’s objects', function () {
  this.timeout(300_000);
  let svc: TestService;
  let a: Ids;
  let bFn: string;
  let bSecret: string;

  const asB = (method: string, path: string, body?: unknown) => svc.request(method, path, body, B);
  const createSecret = async (secretKey: string, value: string, headers: Record<string, string> = {}) => {
    const keypair = (await svc.request('GET', '/v1/secrets/keypair', undefined, headers)).body;
    const created = await svc.request('POST', '/v1/secrets', { secretKey, keypairId: keypair.id, sealedSecretValue: await sealCompat(keypair.publicKey, value) }, headers);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.id as string;
  };

  /** What A sees of its own objects, to show nothing changed. */
  const snapshotOfA = async () => {
    const paths = [
      `/v1/functions/builds/${a.build}`,
      `/v1/functions/builds/${a.build}/logs`,
      `/v1/functions/${a.fn}`,
      `/v1/functions/${a.fn}/versions`,
      `/v1/functions/versions/${a.version}`,
      `/v1/functions/invocations/${a.invocation}`,
      `/v1/functions/invocations/${a.invocation}/logs`,
      `/v1/sessions/${a.session}`,
      `/v1/sessions/${a.session}/logs`,
      `/v1/secrets/${a.secret}`,
      `/v1/functions/${a.fn}/secrets`,
      '/v1/functions',
      '/v1/functions/builds',
      '/v1/secrets',
    ];
    const snapshot: Record<string, unknown> = {};
    for (const path of paths) {
      const res = await svc.request('GET', path);
      assert.equal(res.status, 200, `A reads its own ${path}`);
      snapshot[path] = res.body;
    }
    snapshot.invocations = (await svc.service.cluster.resource(Kinds.Invocation).list('default')).items.map((i) => [i.metadata.name, i.metadata.resourceVersion]);
    return snapshot;
  };

  before(async () => {
    svc = await startTestService();
    const build = await publish(svc, writeProject({ 'index.ts': FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const built = build.builtFunctions![0];
    const secret = await createSecret('A_TOKEN', 'a-secret-value');
    assert.equal((await svc.request('POST', `/v1/functions/${built.id}/secrets`, { secretId: secret })).status, 204);
    const invocation = await invokeAndWait(svc, built.id, { params: { word: 'hello' } });
    assert.equal(invocation.status, 'COMPLETED', JSON.stringify(invocation.cause));
    a = { build: build.id, fn: built.id, version: built.createdVersion, invocation: invocation.id, session: invocation.sessionId, secret };

    // B has objects of its own, so its lists are not trivially empty and its IDs can be mixed with A's.
    const bBuild = await publish({ ...svc, request: (m, p, body, h) => svc.request(m, p, body, { ...B, ...h }) } as TestService, writeProject({ 'index.ts': B_FN }));
    assert.equal(bBuild.status, 'COMPLETED', JSON.stringify(bBuild.cause));
    bFn = bBuild.builtFunctions![0].id;
    bSecret = await createSecret('B_TOKEN', 'b-secret-value', B);
  });
  after(async () => svc?.stop());

  it('answers 404 to every route with one of A’s IDs, as for an ID that exists nowhere, and changes nothing of A', async () => {
    const before = await snapshotOfA();
    const bKeypair = (await asB('GET', '/v1/secrets/keypair')).body;
    const sealedForB = { keypairId: bKeypair.id, sealedSecretValue: await sealCompat(bKeypair.publicKey, 'overwritten-by-b') };
    const tries: [string, string, unknown?][] = [
      ['GET', `/v1/functions/builds/${a.build}`],
      ['GET', `/v1/functions/builds/${a.build}/logs`],
      ['GET', `/v1/functions/${a.fn}`],
      ['GET', `/v1/functions/${a.fn}/versions`],
      ['GET', `/v1/functions/versions/${a.version}`],
      ['POST', `/v1/functions/${a.fn}/invoke`, { params: { word: 'from-b' } }],
      ['GET', `/v1/functions/invocations/${a.invocation}`],
      ['GET', `/v1/functions/invocations/${a.invocation}/logs`],
      ['GET', `/v1/sessions/${a.session}`],
      ['GET', `/v1/sessions/${a.session}/logs`],
      ['GET', `/v1/secrets/${a.secret}`],
      ['PATCH', `/v1/secrets/${a.secret}`, sealedForB],
      ['DELETE', `/v1/secrets/${a.secret}`],
      ['GET', `/v1/functions/${a.fn}/secrets`],
      ['POST', `/v1/functions/${a.fn}/secrets`, { secretId: a.secret }],
      ['POST', `/v1/functions/${a.fn}/secrets`, { secretId: bSecret }],
      ['POST', `/v1/functions/${bFn}/secrets`, { secretId: a.secret }],
      ['DELETE', `/v1/functions/${a.fn}/secrets/${a.secret}`],
    ];
    const nowhere = '00000000-0000-4000-8000-000000000000';
    for (const [method, path, body] of tries) {
      const res = await asB(method, path, body);
      assert.equal(res.status, 404, `${method} ${path} as B: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error, 'Not Found');
      assert.ok(!JSON.stringify(res.body).includes('a-private-fn'), `${method} ${path} names A's Function`);
      // The answer for A's ID is the answer for an unknown ID, with the ID swapped.
      const unknown = await asB(method, replaceIds(path, nowhere), body === undefined ? undefined : JSON.parse(replaceIds(JSON.stringify(body), nowhere)));
      assert.equal(unknown.status, 404);
      assert.equal(replaceIds(JSON.stringify(res.body), nowhere), JSON.stringify(unknown.body), `${method} ${path}: A's ID answers unlike an unknown one`);
    }
    // Detaching from B's own Function is idempotent: 204 for A's secret as for one that exists nowhere.
    assert.equal((await asB('DELETE', `/v1/functions/${bFn}/secrets/${a.secret}`)).status, 204);
    assert.equal((await asB('DELETE', `/v1/functions/${bFn}/secrets/${nowhere}`)).status, 204);
    assert.deepEqual(await snapshotOfA(), before, 'nothing of A changed');
    assert.deepEqual((await svc.service.cluster.resource(Kinds.Invocation).list('other')).items, [], 'B started no invocation');
  });

  it('lists of B show none of A’s objects', async () => {
    const aIds = Object.values(a);
    for (const path of ['/v1/functions', '/v1/functions/builds', '/v1/secrets', `/v1/functions/${bFn}/versions`, `/v1/functions/${bFn}/secrets`]) {
      const res = await asB('GET', path);
      assert.equal(res.status, 200, path);
      const text = JSON.stringify(res.body);
      for (const id of aIds) assert.ok(!text.includes(id), `${path} as B shows A's ${id}`);
      assert.ok(!text.includes('a-private-fn') && !text.includes('A_TOKEN'), `${path} as B names A's objects`);
    }
    assert.equal((await asB('GET', '/v1/functions')).body.total, 1, 'B sees its own Function only');
  });

  /** Every ID of A's objects in `text` replaced by `id`. */
  function replaceIds(text: string, id: string): string {
    return Object.values(a).reduce((replaced, aId) => replaced.split(aId).join(id), text);
  }
});
