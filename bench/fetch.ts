// Fetch benchmark (`make bench`), all figures from one run on this machine:
//  1. throughput and p50 latency of POST /v1/fetch (raw) against a direct undici GET of the same local page,
//  2. markdown conversion throughput of our pipeline against jsdom + Readability + turndown on the WCXB
//     dev pages, with the word-level F1 of both,
//  3. conversion time of 1, 2 and 4 MB pages (linear growth).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { createApp } from '../src/api/app.js';
import { fetchRoutes } from '../src/api/routes/fetch.js';
import { FetchService } from '../src/fetch/fetch-service.js';
import { loadFetchSettings } from '../src/fetch/settings.js';
import { loadSettings } from '../src/config/settings.js';
import { createLogger } from '../src/config/logger.js';
import { Metrics } from '../src/config/metrics.js';
import type { ClusterPort } from '../src/cluster/port.js';
import { convertDocument } from '../src/fetch/convert/convert-document.js';
import { readabilityMarkdown } from './fetch-baseline.js';
import { syntheticArticle } from './fetch-synthetic-page.js';
import { formatWcxbReport, loadWcxbPages, markdownToPlainText, sharedDataDir, summarise, wordF1, type PageScore } from './fetch-scoring.js';
import type { Archive } from '../src/functions/archived/archive.js';
import type { WaitingInvocations } from '../src/functions/waiting-invocations.js';

const REQUESTS = 400;
const CONCURRENCY = 8;

export async function runFetchBench(): Promise<void> {
  console.log('== fetch');
  await throughputBench();
  qualityAndConversionBench();
  growthBench();
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Runs `REQUESTS` calls, `CONCURRENCY` at a time; requests/s and p50 latency in ms. */
async function load(call: () => Promise<void>): Promise<{ perSecond: number; p50: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) {
        const t = performance.now();
        await call();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: REQUESTS / seconds, p50: latencies[Math.floor(latencies.length / 2)] };
}

async function throughputBench(): Promise<void> {
  const page = syntheticArticle(50 * 1024);
  const upstream = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
  const upstreamUrl = await listen(upstream);
  const dataDir = mkdtempSync(join(tmpdir(), 'bfn-fetch-bench-'));
  const settings = loadSettings({ dataDir, env: { BROWSERFN_API_KEY: 'bench-key', BROWSERFN_FETCH_ALLOW_PRIVATE: '1', BROWSERFN_FETCH_MAX_CONCURRENT_PER_PROJECT: '64' } });
  const fetchService = new FetchService(loadFetchSettings(settings.featureEnv.fetch));
  const app = createApp(
    { settings, cluster: null as unknown as ClusterPort, log: createLogger('silent'), metrics: new Metrics(), archive: null as unknown as Archive, waitingInvocations: null as unknown as WaitingInvocations },
    { routes: fetchRoutes({ service: fetchService }) },
  );
  const api = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => api.once('listening', resolve));
  const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  const direct = new Pool(upstreamUrl, { connections: CONCURRENCY });
  const client = new Pool(apiUrl, { connections: CONCURRENCY });
  const viaService = (format: string) => async (): Promise<void> => {
    const res = await client.request({
      path: '/v1/fetch',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': 'bench-key' },
      body: JSON.stringify({ url: `${upstreamUrl}/page`, format }),
    });
    if (res.statusCode !== 200) throw new Error(`fetch answered ${res.statusCode}: ${await res.body.text()}`);
    await res.body.text();
  };
  try {
    await load(viaService('raw'));
    const directGet = await load(async () => {
      const res = await direct.request({ path: '/page', method: 'GET' });
      await res.body.text();
    });
    const raw = await load(viaService('raw'));
    const markdown = await load(viaService('markdown'));
    console.log(`fetch of a local ${Math.round(page.length / 1024)} KB page, ${REQUESTS} requests, ${CONCURRENCY} at a time:`);
    const row = (name: string, r: { perSecond: number; p50: number }): string =>
      `  ${name.padEnd(30)} ${r.perSecond.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(2).padStart(7)} ms   (${(r.perSecond / directGet.perSecond).toFixed(2)}x direct throughput, ${(r.p50 / directGet.p50).toFixed(2)}x direct p50)`;
    console.log(row('direct undici GET', directGet));
    console.log(row('POST /v1/fetch raw', raw));
    console.log(row('POST /v1/fetch markdown', markdown));
  } finally {
    await Promise.all([direct.close(), client.close()]);
    api.closeAllConnections();
    api.close();
    await fetchService.close();
    upstream.closeAllConnections();
    upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function qualityAndConversionBench(): void {
  const dataDir = sharedDataDir();
  if (!dataDir) {
    console.warn('  WCXB comparison skipped: ../shared/data is not next to the repository');
    return;
  }
  const pages = loadWcxbPages(dataDir);
  const bytes = pages.reduce((sum, p) => sum + Buffer.byteLength(p.html), 0);
  const run = (name: string, convert: (html: string, url: string) => string): { ms: number; scores: PageScore[] } => {
    const scores: PageScore[] = [];
    const started = performance.now();
    for (const page of pages) scores.push({ id: page.id, pageType: page.pageType, ...wordF1(markdownToPlainText(convert(page.html, page.url)), page.truth) });
    const ms = performance.now() - started;
    console.log(formatWcxbReport(`  ${name}`, summarise(scores)));
    return { ms, scores };
  };
  const ours = run('browserfn markdown', (html, url) => convertDocument({ format: 'markdown', body: html, contentType: 'text/html', url }).content as string);
  const theirs = run('jsdom + Readability + turndown', readabilityMarkdown);
  const rate = (ms: number): string => `${((pages.length * 1000) / ms).toFixed(1)} pages/s, ${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(2)} MB/s, ${(ms / pages.length).toFixed(1)} ms/page`;
  console.log(`markdown conversion of the ${pages.length} WCXB dev pages (${(bytes / 1024 / 1024).toFixed(1)} MB of HTML), one thread:`);
  console.log(`  browserfn                       ${rate(ours.ms)}`);
  console.log(`  jsdom + Readability + turndown  ${rate(theirs.ms)}`);
  console.log(`  throughput ratio                ${(theirs.ms / ours.ms).toFixed(1)}x`);
  console.log(`  mean F1                         browserfn ${summarise(ours.scores).meanF1.toFixed(3)} vs ${summarise(theirs.scores).meanF1.toFixed(3)}`);
}

function growthBench(): void {
  console.log('conversion time by page size (synthetic article, markdown, median of 3):');
  let previous: number | undefined;
  for (const mb of [1, 2, 4]) {
    const html = syntheticArticle(mb * 1024 * 1024);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      convertDocument({ format: 'markdown', body: html, contentType: 'text/html', url: 'https://bench.example/' });
      times.push(performance.now() - started);
    }
    const ms = times.sort((a, b) => a - b)[1];
    console.log(`  ${mb} MB  ${ms.toFixed(0).padStart(6)} ms  ${(ms / mb).toFixed(0).padStart(5)} ms/MB${previous ? `  (${(ms / previous).toFixed(2)}x the previous size)` : ''}`);
    previous = ms;
  }
}
