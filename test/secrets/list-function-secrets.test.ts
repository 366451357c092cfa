// GET /v1/functions/{id}/secrets exactly as the public API defines it (README: API overview).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { KEYS, PROJECTS, putSecretAt, setAttached, startHarness, type Harness } from './harness.js';
import type { FunctionObject } from '../../src/schemas/resources.js';
import type { SecretMeta } from '../../src/secrets/objects.js';

const T0 = Date.parse('2025-03-01T10:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

describe('GET /v1/functions/{id}/secrets ', function () {
  let h: Harness;
  let fn: FunctionObject;
  /** Attached to fn, created at T0 + i ms for i in 0..24 (so the same second, distinct ms). */
  let attached: SecretMeta[];
  let unattached: SecretMeta;

  before(async () => {
    h = await startHarness();
    fn = await h.createFunction('lister');
    attached = [];
    for (let i = 0; i < 25; i++) attached.push(await putSecretAt(h.cluster, PROJECTS.a, `S_${String(i).padStart(2, '0')}`, T0 + i));
    unattached = await putSecretAt(h.cluster, PROJECTS.a, 'NOT_ATTACHED', T0 + 5);
    fn = await setAttached(h.cluster, fn, attached.map((s) => s.id));
  });
  after(async () => h?.stop());

  const list = (query: string, key: string = KEYS.a, id = fn.metadata.uid) => h.request('GET', `/v1/functions/${id}/secrets${query}`, undefined, key);
  const keysOf = (body: { data: { secretKey: string }[] }) => body.data.map((s) => s.secretKey);
  const names = (from: number, to: number) => attached.slice(from, to + 1).map((s) => s.secretKey);

  const assertError = (res: { status: number; body: Record<string, unknown> }, status: number, message?: RegExp) => {
    assert.equal(res.status, status, JSON.stringify(res.body));
    // The list-secrets error body is exactly {statusCode, error, message}: no `id`.
    assert.deepEqual(Object.keys(res.body).sort(), ['error', 'message', 'statusCode']);
    assert.equal(res.body.statusCode, status);
    assert.equal(res.body.error, status === 400 ? 'Bad Request' : 'Not Found');
    if (message) assert.match(String(res.body.message), message);
  };

  it('answers a SecretsPage {data:[{id, secretKey}], limit, nextCursor}, 20 by default, in creation order, metadata only', async () => {
    const first = await list('');
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.body).sort(), ['data', 'limit', 'nextCursor']);
    assert.equal(first.body.limit, 20);
    assert.equal(first.body.data.length, 20);
    for (const item of first.body.data) assert.deepEqual(Object.keys(item).sort(), ['id', 'secretKey']);
    assert.deepEqual(first.body.data, attached.slice(0, 20).map(({ id, secretKey }) => ({ id, secretKey })));
    assert.equal(typeof first.body.nextCursor, 'string');

    const second = await list(`?cursor=${encodeURIComponent(first.body.nextCursor)}`);
    assert.equal(second.status, 200);
    assert.deepEqual(keysOf(second.body), names(20, 24));
    assert.equal(second.body.nextCursor, null);
    assert.ok(!JSON.stringify([first.body, second.body]).includes('v-S_'), 'no value in a listing');
  });

  it('lists only the secrets attached to the Function', async () => {
    const all = await list('?limit=1000');
    assert.equal(all.body.data.length, 25);
    assert.ok(!keysOf(all.body).includes(unattached.secretKey));
    const bare = await h.createFunction('no-secrets');
    const empty = await list('', KEYS.a, bare.metadata.uid);
    assert.deepEqual(empty.body, { data: [], limit: 20, nextCursor: null });
  });

  it('a page that ends exactly at the last secret has nextCursor null', async () => {
    const page = await list('?limit=25');
    assert.equal(page.body.data.length, 25);
    assert.equal(page.body.nextCursor, null);
    const short = await list('?limit=24');
    assert.equal(typeof short.body.nextCursor, 'string');
    const rest = await list(`?limit=24&cursor=${encodeURIComponent(short.body.nextCursor)}`);
    assert.deepEqual(keysOf(rest.body), names(24, 24));
    assert.equal(rest.body.nextCursor, null);
  });

  it('filters on secret creation time, startAt and endAt both inclusive, to the millisecond', async () => {
    assert.deepEqual(keysOf((await list(`?limit=1000&startAt=${iso(T0 + 3)}`)).body), names(3, 24));
    assert.deepEqual(keysOf((await list(`?limit=1000&endAt=${iso(T0 + 3)}`)).body), names(0, 3));
    assert.deepEqual(keysOf((await list(`?limit=1000&startAt=${iso(T0 + 3)}&endAt=${iso(T0 + 7)}`)).body), names(3, 7));
    assert.deepEqual(keysOf((await list(`?startAt=${iso(T0 + 9)}&endAt=${iso(T0 + 9)}`)).body), names(9, 9));
    // Whole seconds, and offsets other than Z, name the same instants.
    assert.deepEqual(keysOf((await list(`?limit=1000&endAt=2025-03-01T10:00:00Z`)).body), names(0, 0));
    assert.deepEqual(keysOf((await list(`?limit=1000&startAt=${encodeURIComponent('2025-03-01T12:00:00.020+02:00')}`)).body), names(20, 24));
    assert.deepEqual(keysOf((await list(`?limit=1000&endAt=${encodeURIComponent('2025-03-01T04:30:00.002-05:30')}`)).body), names(0, 2));
    // Lower-case t and z are RFC 3339 too.
    assert.deepEqual(keysOf((await list(`?limit=1000&startAt=2025-03-01t10:00:00.024z`)).body), names(24, 24));
    // A fraction finer than the millisecond compares exactly: (T0+3, T0+4) holds no creation time.
    assert.deepEqual(keysOf((await list(`?limit=1000&startAt=2025-03-01T10:00:00.0035Z&endAt=2025-03-01T10:00:00.0039Z`)).body), []);
    assert.deepEqual(keysOf((await list(`?limit=1000&startAt=2025-03-01T10:00:00.0025Z&endAt=2025-03-01T10:00:00.0045Z`)).body), names(3, 4));
    assert.deepEqual(keysOf((await list(`?startAt=2030-01-01T00:00:00Z`)).body), []);
  });

  it('filters on when the secret was created, not when it was attached', async () => {
    const old = await putSecretAt(h.cluster, PROJECTS.a, 'OLD_BUT_NEWLY_ATTACHED', T0 - 60_000);
    const late = await h.createFunction('late-attach');
    assert.equal((await h.request('POST', `/v1/functions/${late.metadata.uid}/secrets`, { secretId: old.id })).status, 204);
    const before = await list(`?endAt=${iso(T0 - 60_000)}`, KEYS.a, late.metadata.uid);
    assert.deepEqual(keysOf(before.body), ['OLD_BUT_NEWLY_ATTACHED']);
    assert.deepEqual(keysOf((await list(`?startAt=${iso(T0 - 59_999)}`, KEYS.a, late.metadata.uid)).body), []);
  });

  it('400 for a date that is not RFC 3339', async () => {
    for (const bad of [
      'yesterday',
      '2025-03-01',
      '2025-03-01T10:00:00',
      '2025-03-01 10:00:00Z',
      '2025-13-01T10:00:00Z',
      '2025-02-29T10:00:00Z',
      '2025-03-01T24:00:00Z',
      '2025-03-01T10:00:00+0200',
      '2025-03-01T10:00:00 02:00',
      '1740823200000',
      '',
    ]) {
      for (const param of ['startAt', 'endAt']) assertError(await list(`?${param}=${encodeURIComponent(bad)}`), 400, new RegExp(param));
    }
    assert.equal((await list(`?startAt=2024-02-29T10:00:00Z`)).status, 200, 'a leap day is a date');
  });

  it('400 when startAt is later than endAt (equal is fine)', async () => {
    assertError(await list(`?startAt=${iso(T0 + 2)}&endAt=${iso(T0 + 1)}`), 400, /startAt .* is later than endAt/);
    assertError(await list(`?startAt=2025-03-01T10:00:00.0006Z&endAt=2025-03-01T10:00:00.0005Z`), 400, /later than endAt/);
    assert.equal((await list(`?startAt=${iso(T0)}&endAt=${iso(T0)}`)).status, 200);
  });

  it('limit is an integer from 1 to 1000 (default 20); anything else is 400', async () => {
    assert.equal((await list('?limit=1')).body.data.length, 1);
    assert.equal((await list('?limit=1')).body.limit, 1);
    assert.equal((await list('?limit=1000')).body.limit, 1000);
    for (const bad of ['0', '1001', '-1', '1.5', 'abc', '', '1e2', '0x10', ' 5', '+5', '1.0', 'true', '99999999999999999999']) {
      assertError(await list(`?limit=${encodeURIComponent(bad)}`), 400, /limit/);
    }
    assertError(await list('?limit=1&limit=2'), 400, /limit/);
  });

  it('400 for a Function ID that is not a UUID; 404 for one not in the caller\'s project', async () => {
    for (const bad of ['not-a-uuid', '1234', `${randomUUID()}x`, `urn:uuid:${randomUUID()}`]) assertError(await list('', KEYS.a, encodeURIComponent(bad)), 400);
    assertError(await list('', KEYS.a, randomUUID()), 404, /does not exist/);
    // The Function exists, but in project a: project b's key does not reach it.
    assertError(await list('', KEYS.b), 404, /does not exist/);
    const theirs = await h.createFunction('theirs', PROJECTS.b);
    assertError(await list('', KEYS.a, theirs.metadata.uid), 404);
    assert.equal((await list('', KEYS.b, theirs.metadata.uid)).status, 200);
    // Upper-case hex is the same UUID.
    assert.equal((await list('?limit=1', KEYS.a, fn.metadata.uid!.toUpperCase())).status, 200);
  });

  it('400 for a forged, corrupt or foreign cursor, and for a cursor used with other filters', async () => {
    const filtered = `startAt=${iso(T0 + 1)}&endAt=${iso(T0 + 20)}`;
    const first = await list(`?limit=5&${filtered}`);
    const cursor: string = first.body.nextCursor;
    assert.equal(typeof cursor, 'string');

    // The cursor continues with the same filters; the page size may change.
    const next = await list(`?limit=3&${filtered}&cursor=${encodeURIComponent(cursor)}`);
    assert.equal(next.status, 200);
    assert.deepEqual(keysOf(next.body), names(6, 8));

    const [payload, mac] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forgedPayload = Buffer.from(JSON.stringify({ ...decoded, t: decoded.t - 1000 })).toString('base64url');
    const flipped = mac.slice(0, -2) + (mac.at(-2) === 'A' ? 'B' : 'A') + mac.at(-1);
    for (const bad of [`${forgedPayload}.${mac}`, `${payload}.${flipped}`, 'garbage', 'a.b', `${payload}.`, `.${mac}`, cursor + 'x', cursor.repeat(8)]) {
      assertError(await list(`?${filtered}&cursor=${encodeURIComponent(bad)}`), 400, /Invalid cursor/);
    }
    assertError(await list(`?${filtered}&cursor=`), 400);
    // Other filters than those it was issued for.
    for (const other of [`startAt=${iso(T0 + 1)}`, `endAt=${iso(T0 + 20)}`, '', `startAt=${iso(T0 + 2)}&endAt=${iso(T0 + 20)}`, `startAt=${iso(T0 + 1)}&endAt=${iso(T0 + 21)}`]) {
      assertError(await list(`?${other}&cursor=${encodeURIComponent(cursor)}`), 400, /different startAt\/endAt filters/);
    }
    // The same instants spelled differently are the same filters.
    const sameInstants = `startAt=${encodeURIComponent('2025-03-01T11:00:00.001+01:00')}&endAt=2025-03-01T10:00:00.020000Z`;
    assert.equal((await list(`?limit=3&${sameInstants}&cursor=${encodeURIComponent(cursor)}`)).status, 200);
    // Another Function's listing, or another project's.
    const other = await h.createFunction('other-lister');
    await setAttached(h.cluster, other, attached.map((s) => s.id));
    assertError(await list(`?${filtered}&cursor=${encodeURIComponent(cursor)}`, KEYS.a, other.metadata.uid), 400, /another listing/);
    const theirs = await h.createFunction('their-lister', PROJECTS.b);
    assertError(await list(`?${filtered}&cursor=${encodeURIComponent(cursor)}`, KEYS.b, theirs.metadata.uid), 400, /Invalid cursor/);
    // A project-listing cursor does not continue a Function listing.
    const projectCursor = (await h.request('GET', `/v1/secrets?limit=2&${filtered}`)).body.nextCursor;
    assertError(await list(`?${filtered}&cursor=${encodeURIComponent(projectCursor)}`), 400, /another listing/);
  });

  it('drops detached and deleted secrets from the listing', async () => {
    const f = await h.createFunction('shrinking');
    const [a, b, c] = [await putSecretAt(h.cluster, PROJECTS.a, 'SHRINK_A', T0 + 100), await putSecretAt(h.cluster, PROJECTS.a, 'SHRINK_B', T0 + 101), await putSecretAt(h.cluster, PROJECTS.a, 'SHRINK_C', T0 + 102)];
    await setAttached(h.cluster, f, [a.id, b.id, c.id]);
    assert.equal((await h.request('DELETE', `/v1/functions/${f.metadata.uid}/secrets/${a.id}`)).status, 204);
    assert.equal((await h.request('DELETE', `/v1/secrets/${b.id}`)).status, 204);
    assert.deepEqual(keysOf((await list('', KEYS.a, f.metadata.uid)).body), ['SHRINK_C']);
  });

  it('documents the operation in the OpenAPI document as Functions_listSecrets', async () => {
    const res = await fetch(`${h.url}/v1/openapi.json`);
    const doc = await res.json();
    const op = doc.paths['/v1/functions/{id}/secrets'].get;
    assert.equal(op.operationId, 'Functions_listSecrets');
    const params = Object.fromEntries(op.parameters.map((p: { name: string; in: string; schema: unknown }) => [`${p.in}:${p.name}`, p.schema]));
    assert.deepEqual(params['path:id'], { type: 'string', format: 'uuid' });
    assert.equal(params['query:startAt'].format, 'date-time');
    assert.equal(params['query:endAt'].format, 'date-time');
    assert.deepEqual({ ...params['query:limit'], description: undefined }, { type: 'integer', minimum: 1, maximum: 1000, default: 20, description: undefined });
    assert.equal(params['query:cursor'].type, 'string');
    assert.deepEqual(Object.keys(op.responses).sort(), ['200', '400', '404']);
  });
});
