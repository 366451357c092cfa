// The conversion workers are shared between projects: one project's slow pages never hold every
// worker against another project's conversion. Real worker threads, real conversions. The slow page
// here is a selector whose cost grows steeply with the nesting depth (minutes on a 12 KB page):
// POST /v1/fetch refuses it (extract/selector-check.ts), but it stands in for any slow conversion.
import assert from 'node:assert/strict';
import { ConversionPool, ConversionTimeoutError } from '../../src/fetch/conversion-pool.js';
import type { ConversionRequest } from '../../src/fetch/convert/convert-document.js';

const page = (body: string): Pick<ConversionRequest, 'body' | 'contentType' | 'url'> => ({
  body: `<html><body>${body}</body></html>`,
  contentType: 'text/html',
  url: 'https://pages.example.test/',
});
/** A page whose conversion takes time growing with its depth: about 0.3 s at 100, minutes at 1000. */
const nestedPage = (depth: number): ConversionRequest => ({
  ...page(`${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}`),
  format: 'json',
  schema: { type: 'object', properties: { x: { type: 'string', 'x-extract': 'div:has(div:has(div:has(span)))' } } },
});
const SLOW = nestedPage(1000);
const QUICK: ConversionRequest = { ...page('<p>A small page with a little text.</p>'), format: 'markdown' };

describe('conversion workers shared between projects', function () {
  this.timeout(120_000);
  let pool: ConversionPool;

  beforeEach(async () => {
    pool = new ConversionPool({ size: 2, heapMb: 256 });
    // Both workers ready, so the slow conversions below take both at once.
    await pool.start();
  });
  afterEach(() => pool.close());

  it("gives a project with nothing converting a worker while another project's slow pages hold them all; theirs wait, none is lost", async () => {
    const settled: string[] = [];
    const slow = [1, 2].map((n) =>
      pool.run(SLOW, { maxRunMs: 60_000, deadline: Date.now() + 10_000 }, 'project-b').then(
        () => settled.push(`b${n} converted`),
        (err: Error) => settled.push(`b${n} ${err instanceof ConversionTimeoutError ? 'timed out' : err.message}`),
      ),
    );
    const quick = await pool.run(QUICK, { maxRunMs: 30_000, deadline: Date.now() + 30_000 }, 'project-a');
    assert.equal(quick.content, 'A small page with a little text.');
    assert.deepEqual(settled, [], "project-a's conversion did not wait for project-b's");
    await Promise.all(slow);
    assert.deepEqual(settled.sort(), ['b1 timed out', 'b2 timed out'], "project-b's stopped conversion waited again, within its own deadline");
  });

  it('serves projects in turn: a burst of one project waits behind the next of another', async () => {
    const done: string[] = [];
    const limits = () => ({ maxRunMs: 60_000, deadline: Date.now() + 120_000 });
    const burst = Array.from({ length: 6 }, (_, n) => pool.run(nestedPage(100), limits(), 'project-b').then(() => done.push(`b${n}`)));
    const other = pool.run(QUICK, limits(), 'project-a').then(() => done.push('a'));
    await Promise.all([...burst, other]);
    // Taken by the first worker to free up, and much quicker than project-b's pages.
    assert.ok(done.indexOf('a') <= 2, `project-a's conversion was not kept behind the burst: ${done.join(' ')}`);
  });
});
