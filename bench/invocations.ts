// Cold invocation latency (invoke → COMPLETED, a handler that connects over CDP and evaluates
// 1+1) against a bare Chromium launch-to-CDP-ready on the same machine, measured in one run.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, waitFor } from '../test/support/service.js';
import { writeProject } from '../test/support/projects.js';
import { publish } from '../test/support/publish.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);

const EVAL_FN = `
import { defineFn } from 'browserfn';
import CDP from 'chrome-remote-interface';
defineFn('eval', async (ctx) => {
  const client = await CDP({ target: ctx.session.connectUrl });
  try {
    const { targetInfos } = await client.Target.getTargets();
    const page = targetInfos.find((t) => t.type === 'page');
    const targetId = page ? page.targetId : (await client.Target.createTarget({ url: 'about:blank' })).targetId;
    const { sessionId } = await client.Target.attachToTarget({ targetId, flatten: true });
    const { result } = await client.send('Runtime.evaluate', { expression: '1+1', returnByValue: true }, sessionId);
    return result.value;
  } finally {
    await client.close();
  }
});
`;

export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** Launch Chromium the way a pod does and time until its DevTools endpoint is announced. */
export async function bareChromiumLaunchMs(chromium = process.env.BROWSERFN_CHROMIUM_PATH ?? '/usr/bin/chromium'): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-chromium-'));
  const started = performance.now();
  const child = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--remote-debugging-port=0', `--user-data-dir=${dir}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    return await new Promise<number>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        if (/DevTools listening on ws:\/\//.test(err)) resolve(performance.now() - started);
      });
      child.on('exit', (code) => reject(new Error(`chromium exited with ${code}: ${err.slice(-500)}`)));
    });
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve).once('error', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runInvocationBench(): Promise<void> {
  const svc = await startTestService({ BROWSERFN_MAX_CONCURRENT_INVOCATIONS: '1' });
  try {
    const build = await publish(svc, writeProject({ 'index.ts': EVAL_FN }));
    if (build.status !== 'COMPLETED') throw new Error(`bench build failed: ${JSON.stringify(build.cause)}`);
    const fnId = build.builtFunctions![0].id;
    const clientMs: number[] = [];
    const serverMs: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      const started = performance.now();
      const created = await svc.request('POST', `/v1/functions/${fnId}/invoke`, {});
      const done = await waitFor('invocation', async () => {
        const { body } = await svc.request('GET', `/v1/functions/invocations/${created.body.id}`);
        return body.status === 'COMPLETED' || body.status === 'FAILED' ? body : undefined;
      }, 60_000, 5);
      if (done.status !== 'COMPLETED' || done.results !== 2) throw new Error(`bench invocation failed: ${JSON.stringify(done)}`);
      if (i === 0) continue; // the first run warms the OS file cache for Chromium and Node
      clientMs.push(performance.now() - started);
      serverMs.push(Date.parse(done.endedAt) - Date.parse(done.createdAt));
    }
    const launchMs: number[] = [];
    for (let i = 0; i < RUNS; i++) launchMs.push(await bareChromiumLaunchMs());

    const p50Launch = percentile(launchMs, 50);
    const rows = [
      ['cold invocation, client-observed (invoke → COMPLETED)', percentile(clientMs, 50), percentile(clientMs, 95)],
      ['cold invocation, server timestamps (createdAt → endedAt)', percentile(serverMs, 50), percentile(serverMs, 95)],
      ['bare Chromium launch → CDP ready (baseline)', p50Launch, percentile(launchMs, 95)],
    ] as const;
    console.log(`\n== Invocations (${RUNS} runs each, same machine, same run) ==`);
    console.log('measure'.padEnd(60) + 'p50 ms'.padStart(10) + 'p95 ms'.padStart(10));
    for (const [name, p50, p95] of rows) console.log(name.padEnd(60) + p50.toFixed(0).padStart(10) + p95.toFixed(0).padStart(10));
    console.log(`ratio cold invocation p50 / bare launch p50: ${(percentile(clientMs, 50) / p50Launch).toFixed(2)}x`);
  } finally {
    await svc.stop();
  }
}
