import assert from 'node:assert/strict';
import fc from 'fast-check';
import { WorkQueue } from '../../src/controller/runtime/workqueue.js';

describe('WorkQueue', () => {
  it('queues a key once however often it is added', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('a');
    q.add('b');
    assert.equal(q.length, 2);
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
    assert.equal(q.length, 0);
  });

  it('re-queues a key added while it is processed, once processing is done', async () => {
    const q = new WorkQueue();
    q.add('a');
    const key = await q.get();
    q.add('a');
    assert.equal(q.length, 0, 'not handed out twice at once');
    q.done(key!);
    assert.equal(q.length, 1);
    assert.equal(await q.get(), 'a');
  });

  it('hands a key to a waiting worker and releases waiters on shut down', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.add('x');
    assert.equal(await waiting, 'x');
    const pending = q.get();
    q.shutDown();
    assert.equal(await pending, undefined);
  });

  it('delivers delayed keys, keeping the earliest pending delay', async () => {
    const q = new WorkQueue();
    q.addAfter('k', 10_000);
    q.addAfter('k', 5);
    assert.equal(await q.get(), 'k');
    q.shutDown();
  });

  it('never loses a key and never hands one out twice concurrently (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 40 }), async (adds) => {
        const q = new WorkQueue();
        const inFlight = new Set<string>();
        const processed = new Set<string>();
        for (const key of adds) q.add(key);
        while (q.length > 0) {
          const key = (await q.get())!;
          assert.ok(!inFlight.has(key));
          inFlight.add(key);
          processed.add(key);
          inFlight.delete(key);
          q.done(key);
        }
        assert.deepEqual([...processed].sort(), [...new Set(adds)].sort());
      }),
    );
  });
});
