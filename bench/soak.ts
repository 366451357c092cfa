// `make soak` (ARGS="--minutes 60 --report-minutes 5"): `browserfn serve` as its own process under a
// steady mix of publish, invoke and fetch, with a report every few minutes: RSS and open file
// descriptors of each process of the service (by role), the data dir's and the store's size, zombie
// and leftover processes, and latency percentiles of the period. Not part of `make test`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { packProject } from '../src/cli/pack.js';
import { writeProject } from '../test/support/projects.js';
import { percentile } from './invocations.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    'report-minutes': { type: 'string', default: '5' },
    'invoke-concurrency': { type: 'string', default: '4' },
    'fetch-concurrency': { type: 'string', default: '2' },
    'publish-minutes': { type: 'string', default: '10' },
  },
});
const MINUTES = Number(args.minutes);
const REPORT_MS = Number(args['report-minutes']) * 60_000;
const API_KEY = 'soak-key';

const FN = (version: number) => `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';
defineFn('soak-title', async (ctx, params: { url: string }) => {
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
  await page.goto(params.url);
  console.log('visited', params.url);
  return { title: await page.title(), version: ${version} };
});
`;

interface Period {
  invokeMs: number[];
  getMs: number[];
  fetchMs: number[];
  publishMs: number[];
  completed: number;
  failed: number;
  errors: string[];
}
const newPeriod = (): Period => ({ invokeMs: [], getMs: [], fetchMs: [], publishMs: [], completed: 0, failed: 0, errors: [] });

export async function runSoak(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-soak-'));
  const pages = await startPageServer();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const serve = spawn(process.execPath, [resolve('dist/src/cli/main.js'), 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], {
    env: {
      ...process.env,
      BROWSERFN_API_KEYS: `${API_KEY}:default`,
      BROWSERFN_MAX_CONCURRENT_INVOCATIONS: args['invoke-concurrency'],
      // Pods and fetches reach the soak's page server on 127.0.0.1.
      BROWSERFN_SANDBOX_NETWORK: 'host',
      BROWSERFN_FETCH_ALLOW_CIDRS: '127.0.0.1/32',
      BROWSERFN_NPM_CACHE: join(tmpdir(), 'browserfn-test-npm-cache'),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stopAt = Date.now() + MINUTES * 60_000;
  let period = newPeriod();
  const totals = { completed: 0, failed: 0 };
  try {
    await waitUntilReady(url, serve);
    let functionId = await publishVersion(url, 1, period);
    let version = 1;
    console.log(`soak: ${MINUTES} min against ${url} (data dir ${dataDir}), reports every ${REPORT_MS / 60_000} min`);
    console.log(header());
    const startedAt = Date.now();
    let nextReport = startedAt + REPORT_MS;
    let nextPublish = startedAt + Number(args['publish-minutes']) * 60_000;

    const invoker = async () => {
      while (Date.now() < stopAt) {
        try {
          const outcome = await invokeOnce(url, functionId, pages.url, period);
          if (outcome === 'COMPLETED') period.completed += 1;
          else period.failed += 1;
        } catch (err) {
          period.errors.push((err as Error).message);
        }
      }
    };
    const fetcher = async () => {
      let i = 0;
      while (Date.now() < stopAt) {
        const started = performance.now();
        const format = (['raw', 'markdown', 'json'] as const)[i++ % 3];
        const res = await api(url, 'POST', '/v1/fetch', { url: `${pages.url}/article`, format, ...(format === 'json' ? { schema: { type: 'object', properties: { title: { type: 'string' } } } } : {}) });
        if (res.status === 200) period.fetchMs.push(performance.now() - started);
        else period.errors.push(`fetch ${format}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    };
    const reporter = async () => {
      while (Date.now() < stopAt) {
        await new Promise((done) => setTimeout(done, Math.max(0, Math.min(nextReport, stopAt) - Date.now())));
        if (Date.now() >= nextPublish && Date.now() < stopAt) {
          version += 1;
          functionId = await publishVersion(url, version, period);
          nextPublish += Number(args['publish-minutes']) * 60_000;
        }
        if (Date.now() >= nextReport || Date.now() >= stopAt) {
          totals.completed += period.completed;
          totals.failed += period.failed;
          console.log(report(Math.round((Date.now() - startedAt) / 60_000), period, serve.pid!, dataDir));
          for (const error of [...new Set(period.errors)].slice(0, 5)) console.log(`    error: ${error}`);
          period = newPeriod();
          nextReport += REPORT_MS;
        }
      }
    };
    await Promise.all([
      ...Array.from({ length: Number(args['invoke-concurrency']) }, invoker),
      ...Array.from({ length: Number(args['fetch-concurrency']) }, fetcher),
      reporter(),
    ]);
    console.log(`soak: ${totals.completed} invocations completed, ${totals.failed} failed in ${MINUTES} min`);
  } finally {
    serve.kill('SIGTERM');
    await new Promise((done) => serve.once('exit', done));
    await new Promise((done) => pages.server.close(done));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function invokeOnce(url: string, functionId: string, pagesUrl: string, period: Period): Promise<string> {
  const started = performance.now();
  const created = await api(url, 'POST', `/v1/functions/${functionId}/invoke`, { params: { url: `${pagesUrl}/article` } });
  if (created.status !== 202) throw new Error(`invoke: ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
  for (;;) {
    const got = performance.now();
    const res = await api(url, 'GET', `/v1/functions/invocations/${created.body.id}`);
    period.getMs.push(performance.now() - got);
    if (res.body.status === 'COMPLETED' || res.body.status === 'FAILED') {
      if (res.body.status === 'COMPLETED') period.invokeMs.push(performance.now() - started);
      else period.errors.push(`invocation ${res.body.cause?.code}: ${String(res.body.cause?.message).slice(0, 200)}`);
      return res.body.status;
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

async function publishVersion(url: string, version: number, period: Period): Promise<string> {
  const started = performance.now();
  const root = writeProject({ 'index.ts': FN(version) });
  try {
    const packed = await packProject(join(root, 'index.ts'));
    const form = new FormData();
    form.append('metadata', JSON.stringify({ entrypoint: packed.entrypoint }));
    form.append('archive', new Blob([new Uint8Array(packed.archive)], { type: 'application/gzip' }), 'archive.tar.gz');
    const created = await fetch(`${url}/v1/functions/builds`, { method: 'POST', headers: { 'x-svc-api-key': API_KEY }, body: form });
    const build = (await created.json()) as { id: string };
    for (;;) {
      const res = await api(url, 'GET', `/v1/functions/builds/${build.id}`);
      if (res.body.status === 'COMPLETED') {
        period.publishMs.push(performance.now() - started);
        return res.body.builtFunctions[0].id;
      }
      if (res.body.status === 'FAILED') throw new Error(`publish failed: ${JSON.stringify(res.body.cause)}`);
      await new Promise((done) => setTimeout(done, 250));
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function api(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, { method, headers: { 'x-svc-api-key': API_KEY, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

// ---- the report ----

interface ProcessInfo {
  pid: number;
  ppid: number;
  state: string;
  rssKiB: number;
  fds: number;
  role: string;
}

function header(): string {
  return 'min | invocations ok/failed | invoke p50/p95/p99 ms | GET invocation p99 ms | fetch p50/p95 ms | serve RSS MiB, fds | pods: processes, RSS MiB | zombies | data dir MiB (store.db and its write-ahead log)';
}

function report(minute: number, period: Period, servePid: number, dataDir: string): string {
  const tree = processTree(servePid);
  const serve = tree.find((p) => p.pid === servePid);
  const pods = tree.filter((p) => p.pid !== servePid && p.state !== 'Z');
  const zombies = tree.filter((p) => p.state === 'Z').length;
  const byRole = new Map<string, { count: number; rssKiB: number }>();
  for (const p of pods) {
    const entry = byRole.get(p.role) ?? { count: 0, rssKiB: 0 };
    byRole.set(p.role, { count: entry.count + 1, rssKiB: entry.rssKiB + p.rssKiB });
  }
  const p = (values: number[], q: number) => (values.length ? Math.round(percentile(values, q)) : '-');
  const mib = (kib: number) => (kib / 1024).toFixed(0);
  const roles = [...byRole].map(([role, v]) => `${role} ${v.count}/${mib(v.rssKiB)}`).join(' ') || 'none';
  return [
    String(minute).padStart(3),
    `${period.completed}/${period.failed}`,
    `${p(period.invokeMs, 50)}/${p(period.invokeMs, 95)}/${p(period.invokeMs, 99)}`,
    `${p(period.getMs, 99)}`,
    `${p(period.fetchMs, 50)}/${p(period.fetchMs, 95)}`,
    `${serve ? mib(serve.rssKiB) : '?'}, ${serve?.fds ?? '?'}`,
    roles,
    String(zombies),
    `${(folderBytes(dataDir) / 1024 / 1024).toFixed(1)} (${((fileBytes(join(dataDir, 'store.db')) + fileBytes(join(dataDir, 'store.db-wal'))) / 1024 / 1024).toFixed(1)})`,
  ].join(' | ');
}

/** The service process and everything under it, read from /proc. */
function processTree(rootPid: number): ProcessInfo[] {
  const all: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'));
      all.push({ pid: Number(entry), ppid: Number(ppid), state, rssKiB: rss ? Number(rss[1]) : 0, fds: countFds(entry), role: roleOf(readFileSync(`/proc/${entry}/cmdline`, 'utf8')) });
    } catch {
      // exited meanwhile
    }
  }
  const children = new Map<number, ProcessInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const found: ProcessInfo[] = [];
  const pending = all.filter((p) => p.pid === rootPid);
  while (pending.length) {
    const next = pending.pop()!;
    found.push(next);
    pending.push(...(children.get(next.pid) ?? []));
  }
  return found;
}

function roleOf(cmdline: string): string {
  if (/chrom/.test(cmdline)) return 'chromium';
  if (/pod-agent/.test(cmdline)) return 'pod-agent';
  if (/build-agent|build\/main/.test(cmdline)) return 'build';
  if (/bwrap|pasta|prlimit/.test(cmdline)) return 'sandbox';
  if (/fetch|worker/.test(cmdline)) return 'worker';
  return 'node';
}

function countFds(pid: string): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const name of safeReaddir(dir)) {
    const path = join(dir, name);
    try {
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory() && !readlinkOrUndefined(path)) total += folderBytes(path);
      else if (stat.isFile()) total += stat.size;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readlinkOrUndefined(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

function fileBytes(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}

// ---- the pages the soak visits and fetches ----

async function startPageServer(): Promise<{ url: string; server: Server }> {
  const article = `<!doctype html><html><head><title>Soak article</title></head><body><article><h1>Soak article</h1>${'<p>Paragraph of the soak article with enough words to be main content.</p>'.repeat(40)}</article></body></html>`;
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(article);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

async function waitUntilReady(url: string, serve: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (serve.exitCode !== null) throw new Error(`serve exited with ${serve.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error('serve did not become ready within 60 s');
}

await runSoak();
