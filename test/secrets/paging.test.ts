// Paging through 2,500 secrets with limit 1000, while secrets are being added: nothing is skipped
// or repeated, in the project listing and in the Function listing (src/secrets/list-query.ts).
import assert from 'node:assert/strict';
import { PROJECTS, putSecretAt, setAttached, startHarness, type Harness } from './harness.js';
import { createSecret, listSecrets } from '../../src/secrets/store.js';
import type { FunctionObject } from '../../src/schemas/resources.js';
import type { SecretMeta } from '../../src/secrets/objects.js';

interface Page {
  data: { id: string; secretKey: string }[];
  limit: number;
  nextCursor: string | null;
}

const order = (a: SecretMeta, b: SecretMeta): number => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe('paging through 2,500 secrets', function () {
  this.timeout(180_000);
  let h: Harness;
  let fn: FunctionObject;
  let initial: string[];

  before(async () => {
    h = await startHarness();
    fn = await h.createFunction('many-secrets');
    // Most through the storage module (sealing 2,500 values over HTTP takes ~45 s here), the rest over HTTP.
    for (let i = 0; i < 2400; i++) await createSecret(h.cluster, PROJECTS.a, `BULK_${i}`, `bulk-value-${i}`);
    for (let i = 0; i < 100; i++) assert.equal((await h.createSecret(`HTTP_${i}`, `http-value-${i}`)).status, 201);
    initial = (await listSecrets(h.cluster, PROJECTS.a)).map((s) => s.meta.id);
    assert.equal(initial.length, 2500);
    // Attach 2,450 directly, the last 50 over HTTP.
    fn = await setAttached(h.cluster, fn, initial.slice(0, 2450));
    for (const id of initial.slice(2450)) assert.equal((await h.request('POST', `/v1/functions/${fn.metadata.uid}/secrets`, { secretId: id })).status, 204);
  });
  after(async () => h?.stop());

  /** Pages to the end with `limit`, calling `between` after every page; returns the IDs in the order seen. */
  async function pageAll(path: string, query: string, limit: number, between: (pageNo: number) => Promise<void>): Promise<{ ids: string[]; pages: Page[] }> {
    const ids: string[] = [];
    const pages: Page[] = [];
    let cursor: string | null = null;
    do {
      const cursorParam: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const res = await h.request<Page>('GET', `${path}?limit=${limit}${query}${cursorParam}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.limit, limit);
      assert.ok(res.body.data.length <= limit);
      pages.push(res.body);
      ids.push(...res.body.data.map((s) => s.id));
      cursor = res.body.nextCursor;
      if (cursor) {
        assert.equal(res.body.data.length, limit, 'only the last page is short');
        await between(pages.length);
      }
    } while (cursor);
    return { ids, pages };
  }

  async function assertStableOrder(ids: string[]): Promise<void> {
    const meta = new Map((await listSecrets(h.cluster, PROJECTS.a)).map((s) => [s.meta.id, s.meta]));
    for (let i = 1; i < ids.length; i++) assert.ok(order(meta.get(ids[i - 1]!)!, meta.get(ids[i]!)!) < 0, `order at ${i}`);
  }

  it('GET /v1/secrets with limit 1000 sees each of 2,500 exactly once while secrets are added between pages', async () => {
    const added: string[] = [];
    const { ids, pages } = await pageAll('/v1/secrets', '', 1000, async (pageNo) => {
      for (let i = 0; i < 3; i++) {
        const res = await h.createSecret(`ADDED_P${pageNo}_${i}`, `added-${pageNo}-${i}`);
        assert.equal(res.status, 201);
        added.push(res.body.id);
      }
    });
    assert.deepEqual(pages.map((p) => p.data.length), [1000, 1000, 506]);
    assert.equal(new Set(ids).size, ids.length, 'no secret repeated');
    for (const id of initial) assert.ok(ids.includes(id), `initial secret ${id} skipped`);
    // Added after the pages read so far, they come later in the order and are not missed either.
    for (const id of added) assert.ok(ids.includes(id), `added secret ${id} missed`);
    await assertStableOrder(ids);
  });

  it('GET /v1/functions/{id}/secrets with limit 1000 sees each attached secret exactly once while secrets are added and attached', async () => {
    const before = new Set((await h.getFunction(fn)).spec.secrets);
    assert.equal(before.size, 2500);
    const added: string[] = [];
    const { ids, pages } = await pageAll(`/v1/functions/${fn.metadata.uid}/secrets`, '', 1000, async (pageNo) => {
      for (let i = 0; i < 4; i++) {
        const res = await h.createSecret(`ATTACHED_P${pageNo}_${i}`, `attached-${pageNo}-${i}`);
        assert.equal((await h.request('POST', `/v1/functions/${fn.metadata.uid}/secrets`, { secretId: res.body.id })).status, 204);
        added.push(res.body.id);
      }
      // Unattached newcomers never show up in the Function's listing.
      await h.createSecret(`UNATTACHED_P${pageNo}`, 'x');
    });
    assert.deepEqual(pages.map((p) => p.data.length), [1000, 1000, 508]);
    assert.equal(new Set(ids).size, ids.length, 'no secret repeated');
    assert.deepEqual(new Set(ids), new Set([...before, ...added]));
    await assertStableOrder(ids);
  });

  it('keeps startAt/endAt across pages over the large set', async () => {
    const all = (await listSecrets(h.cluster, PROJECTS.a)).map((s) => s.meta).sort(order);
    const startAt = all[300]!.createdAt;
    const endAt = all[1800]!.createdAt;
    const expected = all.filter((m) => m.createdAt >= startAt && m.createdAt <= endAt).map((m) => m.id);
    const query = `&startAt=${new Date(startAt).toISOString()}&endAt=${new Date(endAt).toISOString()}`;
    const { ids, pages } = await pageAll('/v1/secrets', query, 1000, async () => undefined);
    assert.equal(pages.length, Math.ceil(expected.length / 1000));
    assert.deepEqual(ids, expected);
  });

  it('orders secrets created in the same millisecond by ID, so small pages neither skip nor repeat them', async () => {
    const tied = Date.parse('2020-06-01T00:00:00.123Z');
    const metas: SecretMeta[] = [];
    for (let i = 0; i < 60; i++) metas.push(await putSecretAt(h.cluster, PROJECTS.a, `TIED_${i}`, tied));
    const at = new Date(tied).toISOString();
    const { ids } = await pageAll('/v1/secrets', `&startAt=${at}&endAt=${at}`, 7, async () => undefined);
    assert.deepEqual(ids, metas.map((m) => m.id).sort());
  });

  it('a secret stored with an earlier creation time mid-paging (another replica\'s clock) does not make others skip or repeat', async () => {
    const window = `&endAt=2021-01-01T00:00:00Z`;
    const base = Date.parse('2019-01-01T00:00:00Z');
    const metas: SecretMeta[] = [];
    for (let i = 0; i < 30; i++) metas.push(await putSecretAt(h.cluster, PROJECTS.a, `SKEW_${i}`, base + i * 1000));
    const tiedInWindow = (await listSecrets(h.cluster, PROJECTS.a)).map((s) => s.meta).filter((m) => m.secretKey.startsWith('TIED_')).map((m) => m.id);
    let late = 0;
    const { ids } = await pageAll('/v1/secrets', window, 8, async () => {
      // Lands before the cursor: it may be missed in this pass, but nothing else may be.
      await putSecretAt(h.cluster, PROJECTS.a, `SKEW_LATE_${late++}`, base - 1000 * late);
    });
    assert.equal(new Set(ids).size, ids.length, 'no secret repeated');
    for (const m of metas) assert.ok(ids.includes(m.id), `${m.secretKey} skipped`);
    for (const id of tiedInWindow) assert.ok(ids.includes(id), 'tied secret skipped');
  });
});
