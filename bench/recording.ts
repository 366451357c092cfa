// Session recording's cost, side by side in one run: page-load time (page.goto until `load`, in the
// handler) with browserSettings.recordSession off (the baseline) and on (screencast to ffmpeg, rrweb
// in the page), invocations interleaved so both see the same machine, on a page of some weight and
// on one whose script builds 30,000 elements (rrweb serializes each); and what a session stores.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestService } from '../test/support/service.js';
import { writeProject } from '../test/support/projects.js';
import { invokeAndWait, publish } from '../test/support/publish.js';
import { startPageServer } from '../test/support/http-fixtures.js';
import { percentile } from './invocations.js';

const RUNS = Number(process.env.BENCH_RECORDING_RUNS ?? 6);

const FUNCTION = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';

defineFn('load', async (ctx, params: { url: string; loads: number }) => {
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  const context = browser.contexts()[0];
  const page = context.pages()[0] ?? (await context.newPage());
  const times: number[] = [];
  for (let i = 0; i < params.loads; i += 1) {
    const started = performance.now();
    await page.goto(params.url + '?load=' + i, { waitUntil: 'load' });
    times.push(performance.now() - started);
  }
  return times;
});
`;

/** A page whose script builds 30,000 small elements before it loads, as long result lists do. */
const LARGE_PAGE = `<!doctype html><html><body><div id="root"></div><script>
const root = document.getElementById('root');
for (let i = 0; i < 30000; i += 1) root.appendChild(Object.assign(document.createElement('div'), { textContent: 'item ' + i, className: 'c' + (i % 7) }));
</script></body></html>`;

/** A page of some weight for rrweb's snapshot and the screencast: 2,000 elements, a running animation. */
const PAGE = `<!doctype html><html><head><title>bench</title></head><body>
${Array.from({ length: 400 }, (_, i) => `<section><h2>Item ${i}</h2><p>Some text of item ${i}.</p><ul><li>a</li><li>b</li></ul></section>`).join('\n')}
<script>let n = 0; (function tick() { document.title = 'bench ' + n++; requestAnimationFrame(tick); })();</script>
</body></html>`;

function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }) as { isFile(): boolean; parentPath: string; name: string }[]) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

interface PageCase {
  path: string;
  title: string;
  loads: number;
}

const CASES: PageCase[] = [
  { path: '/', title: 'a 2,000-element animated page', loads: 5 },
  { path: '/large', title: 'a page whose script builds 30,000 elements', loads: 2 },
];

export async function runRecordingBench(): Promise<void> {
  const pages = await startPageServer({ '/': PAGE, '/large': LARGE_PAGE });
  const svc = await startTestService();
  try {
    const build = await publish(svc, writeProject({ 'index.ts': FUNCTION }));
    if (build.status !== 'COMPLETED') throw new Error(`bench build failed: ${JSON.stringify(build.cause)}`);
    const fnId = build.builtFunctions![0].id;
    const sessions: string[] = [];
    for (const { path, title, loads: perInvocation } of CASES) {
      const loads = { off: [] as number[], on: [] as number[] };
      // One of each first, unmeasured, to warm the OS caches.
      for (let run = 0; run <= RUNS; run += 1) {
        for (const recordSession of [false, true]) {
          const done = await invokeAndWait(svc, fnId, { params: { url: pages.url + path, loads: perInvocation }, sessionCreateParams: { browserSettings: { recordSession } } }, 300_000);
          if (done.status !== 'COMPLETED') throw new Error(`bench invocation failed: ${JSON.stringify(done.cause)}`);
          if (run === 0) continue;
          loads[recordSession ? 'on' : 'off'].push(...(done.results as number[]));
          if (recordSession && path === '/') sessions.push(done.sessionId);
        }
      }
      console.log(`\n== Session recording: page load (goto until load, ${title}), ${RUNS} invocations × ${perInvocation} loads each, interleaved ==`);
      console.log(''.padEnd(28) + ['p50 ms', 'p95 ms', 'max ms'].map((h) => h.padStart(10)).join(''));
      for (const [name, values] of [['recording off (baseline)', loads.off], ['recording on', loads.on]] as const) {
        console.log(name.padEnd(28) + [percentile(values, 50), percentile(values, 95), Math.max(...values)].map((v) => v.toFixed(0).padStart(10)).join(''));
      }
    }
    const stored = sessions.map((id) => bytesUnder(join(svc.dataDir, 'artifacts', 'recordings', 'default', id)));
    console.log(`stored per recorded session of the 2,000-element page: ${(stored.reduce((a, b) => a + b, 0) / stored.length / 1024).toFixed(0)} KiB on average (HLS + MP4 + rrweb events)`);
  } finally {
    await svc.stop();
    await pages.close();
  }
}
