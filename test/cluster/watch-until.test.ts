// watchUntil and watchForObject over the real embedded store: each way a wait ends.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds, newObject, type KubeObject } from '../../src/cluster/objects.js';
import type { ClusterPort, ResourceClient } from '../../src/cluster/port.js';
import { watchForObject, watchUntil } from '../../src/cluster/watch-until.js';

type ConfigMap = KubeObject & { data?: Record<string, string> };
const hasDone = (cm: ConfigMap): boolean => cm.data?.state === 'done';

describe('waiting on objects (embedded store)', () => {
  let cluster: ClusterPort;
  let maps: ResourceClient<ConfigMap>;

  beforeEach(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    maps = cluster.resource<ConfigMap>(Kinds.ConfigMap);
  });
  afterEach(() => cluster.close());

  const createMap = (name: string, state: string) => maps.create(newObject<ConfigMap>(Kinds.ConfigMap, { name, namespace: 'ns' }, { data: { state } }));

  describe('watchUntil', () => {
    const create = (state: string) => createMap('m', state);

    it('returns at once when the object is already there', async () => {
      const cm = await create('done');
      assert.deepEqual(await watchUntil(maps, cm, hasDone, 60_000), { latest: cm, reached: true, deleted: false });
    });

    it('sees a change made after the caller read the object, even one made before the watch started', async () => {
      const cm = await create('working');
      const updated = await maps.update({ ...cm, data: { state: 'done' } });
      const result = await watchUntil(maps, cm, hasDone, 60_000);
      assert.equal(result.reached, true);
      assert.equal(result.latest.metadata.resourceVersion, updated.metadata.resourceVersion);
    });

    it('ends when the object is deleted, with the last version seen', async () => {
      const cm = await create('working');
      const waiting = watchUntil(maps, cm, hasDone, 60_000);
      const touched = await maps.update({ ...cm, data: { state: 'still working' } });
      await maps.delete('ns', 'm');
      const result = await waiting;
      assert.equal(result.deleted, true);
      assert.equal(result.reached, false);
      assert.equal(result.latest.metadata.resourceVersion, touched.metadata.resourceVersion);
    });

    it('ends unreached when its time is up or the caller aborts', async () => {
      const cm = await create('working');
      assert.deepEqual(await watchUntil(maps, cm, hasDone, 1), { latest: cm, reached: false, deleted: false });
      const abort = new AbortController();
      const waiting = watchUntil(maps, cm, hasDone, 60_000, abort.signal);
      abort.abort();
      assert.deepEqual(await waiting, { latest: cm, reached: false, deleted: false });
    });
  });

  describe('watchForObject', () => {
    const create = (name: string) => createMap(name, 'done');

    it('returns an object already there, and one created while it waits (not one of another name)', async () => {
      const there = await create('m');
      assert.equal((await watchForObject(maps, 'ns', 'm', 0))?.metadata.uid, there.metadata.uid);
      const waiting = watchForObject(maps, 'ns', 'later', 60_000);
      await create('other');
      const created = await create('later');
      assert.equal((await waiting)?.metadata.uid, created.metadata.uid);
    });

    it('returns undefined when its time is up', async () => {
      assert.equal(await watchForObject(maps, 'ns', 'never', 0), undefined);
      assert.equal(await watchForObject(maps, 'ns', 'never', 5), undefined);
    });
  });
});
