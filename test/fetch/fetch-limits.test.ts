// POST /v1/fetch limits: the 402/403/429/502/504 failure responses, and conversion off the request
// thread (other requests keep being served while a big page converts; one too large for a worker's
// heap is a 502).
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import { startFetchApi, startUpstream, waitFor, type FetchApi, type Upstream } from './harness.js';
import { syntheticArticle } from '../../bench/fetch-synthetic-page.js';

const BIG_PAGE = syntheticArticle(5 * 1024 * 1024);

describe('POST /v1/fetch limits', function () {
  let upstream: Upstream;
  const held: ServerResponse[] = [];

  before(async () => {
    upstream = await startUpstream((req, res) => {
      const path = req.url ?? '/';
      if (path === '/hold') held.push(res);
      else if (path === '/hang-body') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('start of a body that never ends');
        held.push(res);
      } else if (path === '/declared-large') res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '200000' }).end('x'.repeat(200_000));
      else if (path === '/streamed-large') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        for (let i = 0; i < 20; i++) res.write('y'.repeat(10_000));
        res.end();
      } else if (path === '/gzip-bomb') res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(10 * 1024 * 1024)));
      else if (path === '/stacked-bomb') res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip, gzip' }).end(gzipSync(gzipSync(Buffer.alloc(10 * 1024 * 1024))));
      else if (path === '/big') res.writeHead(200, { 'content-type': 'text/html' }).end(BIG_PAGE);
      else if (path === '/many-elements') res.writeHead(200, { 'content-type': 'text/html' }).end('<p>a'.repeat(1_200_000));
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><p>A small page with a little text.</p></body></html>');
    });
  });

  afterEach(() => {
    for (const res of held.splice(0)) res.destroy();
  });

  after(() => upstream.close());

  describe('403 and 402: formats per project and quotas', () => {
    let api: FetchApi;
    before(async () => {
      api = await startFetchApi({
        BROWSERFN_FETCH_FORMATS: '*=raw,markdown,json;beta=raw',
        BROWSERFN_FETCH_QUOTAS: 'alpha:markdown=2',
      });
    });
    after(() => api.close());

    it('a format not enabled for the project is a 403', async () => {
      const { status, body } = await api.post({ url: `${upstream.url}/`, format: 'markdown' }, 'beta-key');
      assert.equal(status, 403);
      assert.match(body.message, /Format markdown is not enabled for project beta; enabled: raw/);
      assert.ok(body.id);
      assert.equal((await api.post({ url: `${upstream.url}/` }, 'beta-key')).status, 200);
    });

    it('a used-up quota is a 402; other formats and projects are unaffected; failures are not counted', async () => {
      const failed = await api.post({ url: 'http://no-such-host.invalid/', format: 'markdown' }, 'alpha-key');
      assert.equal(failed.status, 502);
      for (let i = 0; i < 2; i++) assert.equal((await api.post({ url: `${upstream.url}/`, format: 'markdown' }, 'alpha-key')).status, 200);
      const { status, body } = await api.post({ url: `${upstream.url}/`, format: 'markdown' }, 'alpha-key');
      assert.equal(status, 402);
      assert.match(body.message, /The markdown quota of project alpha \(2 per 86400 s\) is used up; it resets at \d{4}-/);
      assert.ok(body.id);
      assert.equal((await api.post({ url: `${upstream.url}/`, format: 'raw' }, 'alpha-key')).status, 200);
      assert.equal((await api.post({ url: `${upstream.url}/`, format: 'markdown' })).status, 200);
    });

    it('counts fetches in the metrics by format and status', async () => {
      const text = await api.metrics.registry.metrics();
      assert.match(text, /browserfn_fetch_requests_total\{format="markdown",status="402"\} 1/);
      assert.match(text, /browserfn_fetch_requests_total\{format="markdown",status="200"\} \d/);
    });
  });

  describe('429: concurrent fetch limit', () => {
    let api: FetchApi;
    before(async () => {
      api = await startFetchApi({ BROWSERFN_FETCH_MAX_CONCURRENT_PER_PROJECT: '1', BROWSERFN_FETCH_MAX_CONCURRENT: '2' });
    });
    after(() => api.close());

    it('refuses a fetch over the per-project limit while one runs, and accepts again after', async () => {
      const seen = upstream.requests.length;
      const first = api.post({ url: `${upstream.url}/hold` });
      await waitFor(() => held.length === 1 && upstream.requests.length > seen);
      const { status, body } = await api.post({ url: `${upstream.url}/` });
      assert.equal(status, 429);
      assert.match(body.message, /Too many concurrent fetches for project default \(limit 1\)/);
      assert.ok(body.id);
      // Another project still has room under the total limit.
      assert.equal((await api.post({ url: `${upstream.url}/` }, 'alpha-key')).status, 200);
      held.shift()!.writeHead(200, { 'content-type': 'text/plain' }).end('released');
      assert.equal((await first).body.content, 'released');
      assert.equal((await api.post({ url: `${upstream.url}/` })).status, 200);
    });
  });

  describe('502: body over the cap', () => {
    let api: FetchApi;
    before(async () => {
      api = await startFetchApi({ BROWSERFN_FETCH_MAX_BODY_BYTES: '100000' });
    });
    after(() => api.close());

    for (const [name, path] of [
      ['declared by Content-Length', '/declared-large'],
      ['streamed without a length', '/streamed-large'],
      ['after decompression (gzip bomb)', '/gzip-bomb'],
      ['after decompression of stacked codings (gzip, gzip)', '/stacked-bomb'],
    ]) {
      it(name, async () => {
        const { status, body } = await api.post({ url: `${upstream.url}${path}` });
        assert.equal(status, 502);
        assert.match(body.message, /is larger than the 98 KB limit/);
        assert.ok(body.id);
      });
    }
  });

  describe('504: over the time limit', () => {
    let api: FetchApi;
    before(async () => {
      api = await startFetchApi({ BROWSERFN_FETCH_TIMEOUT_MS: '400' });
    });
    after(() => api.close());

    it('an upstream that never answers', async () => {
      const { status, body } = await api.post({ url: `${upstream.url}/hold` });
      assert.equal(status, 504);
      assert.match(body.message, /took longer than the 400 ms limit/);
      assert.ok(body.id);
    });

    it('a body that never ends', async () => {
      const { status } = await api.post({ url: `${upstream.url}/hang-body` });
      assert.equal(status, 504);
    });
  });

  describe('conversion in worker threads', () => {
    it('a conversion over its time limit is stopped and is a 504; the next one works', async () => {
      const api = await startFetchApi({ BROWSERFN_FETCH_CONVERSION_TIMEOUT_MS: '100', BROWSERFN_FETCH_WORKERS: '1' });
      try {
        const { status, body } = await api.post({ url: `${upstream.url}/big`, format: 'markdown' });
        assert.equal(status, 504);
        assert.match(body.message, /Converting .* to markdown took longer than 100 ms/);
        const small = await api.post({ url: `${upstream.url}/`, format: 'markdown' });
        assert.equal(small.status, 200);
        assert.equal(small.body.content, 'A small page with a little text.');
      } finally {
        await api.close();
      }
    });

    it('a page too large for a conversion worker\'s heap is a 502 naming the limit; the next one works', async () => {
      // A million empty paragraphs (4.8 MB, within the body cap) need more than a 64 MiB heap to parse.
      const api = await startFetchApi({ BROWSERFN_FETCH_WORKER_HEAP_MB: '64', BROWSERFN_FETCH_WORKERS: '1', BROWSERFN_FETCH_CONVERSION_TIMEOUT_MS: '60000' });
      try {
        for (const format of ['markdown', 'json']) {
          const { status, body } = await api.post({ url: `${upstream.url}/many-elements`, format, ...(format === 'json' ? { schema: { type: 'object', properties: { title: { type: 'string' } } } } : {}) });
          assert.equal(status, 502, JSON.stringify(body));
          assert.match(body.message, new RegExp(`is too large to convert to ${format}: it needs more than the 64 MiB a conversion may use \\(BROWSERFN_FETCH_WORKER_HEAP_MB\\)`));
        }
        const small = await api.post({ url: `${upstream.url}/`, format: 'markdown' });
        assert.equal(small.status, 200);
      } finally {
        await api.close();
      }
    });

    it('a 5 MB page converts while other requests keep being served and the event loop stays free', async () => {
      const api = await startFetchApi();
      const delay = monitorEventLoopDelay({ resolution: 10 });
      try {
        let bigDone = false;
        const started = performance.now();
        const big = api.post({ url: `${upstream.url}/big`, format: 'markdown' }).then((r) => {
          bigDone = true;
          return r;
        });
        await waitFor(() => upstream.requests.some((r) => r.url === '/big'));
        delay.enable();
        let servedDuring = 0;
        while (!bigDone) {
          const small = await api.post({ url: `${upstream.url}/` });
          assert.equal(small.status, 200);
          if (!bigDone) servedDuring++;
        }
        delay.disable();
        const { status, body } = await big;
        const wall = performance.now() - started;
        assert.equal(status, 200);
        assert.match(body.content, /^# Synthetic article/);
        assert.ok(servedDuring >= 3, `only ${servedDuring} requests were served during the conversion`);
        // On the request thread the loop would stall for the whole conversion; scheduling on a busy
        // machine still causes short stalls, so the bound is relative to the conversion's duration.
        assert.ok(delay.max / 1e6 < 0.3 * wall, `event loop blocked for ${(delay.max / 1e6).toFixed(0)} ms of ${wall.toFixed(0)} ms`);
      } finally {
        delay.disable();
        await api.close();
      }
    });
  });
});
