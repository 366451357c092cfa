// Invocation start-up, side by side in one run on the same machine: a bare Chromium launch to
// CDP-ready (the baseline: the full browser, as the targets were set against it; and the build
// sessions run, the headless shell by default, bare too), cold invocations (pools off; with a sandbox
// made ahead, the default, and without), warm invocations (a ready pool member
// claimed), where the time goes before the handler starts, the handler's CDP round trip to its
// browser, 200 back-to-back invocations at concurrency N with and without a pool of N, and the
// memory one idle pool member and one sandbox made ahead hold; warm invocations whose handler uses Playwright or Puppeteer, on
// members that preloaded them; warm invocations of the same handler written for
// @browserbasehq/sdk-functions; warm invocations with the embedded store syncing every write
// (BROWSERFN_STORE_SYNC=full). Invocations use a handler that evaluates 1+1 in the page. Cold
// and warm invocations are also timed with nothing polling, from the service's own watch of their
// status, from the client's POST and from the invocation's storing (the invoke accepted): a client
// polling every 2 ms costs the machine most of a core (about 1.8 ms of CPU per read, the client's
// and the service's), which a cold start, busy on both cores, waits behind.
import { spawn } from 'node:child_process';
import CDP from 'chrome-remote-interface';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kinds } from '../src/cluster/objects.js';
import { Labels, type BrowserPoolObject, type InvocationObject } from '../src/schemas/resources.js';
import { isTerminal } from '../src/functions/invocations.js';
import type { PodObject } from '../src/schemas/pod.js';
import { startTestService, waitFor, type TestService } from '../test/support/service.js';
import { writeProject } from '../test/support/projects.js';
import { publish } from '../test/support/publish.js';
import { processTreeOf } from '../test/support/processes.js';
import { sandboxesMadeAhead, sandboxReadyAhead } from '../test/support/sandboxes-ahead.js';
import { chromiumBuildOf, defaultChromiumPath } from '../src/config/chromium-build.js';

/** The build sessions run, as the service picks it; the full browser the targets are measured against. */
const SESSION_CHROMIUM = process.env.BROWSERFN_CHROMIUM_PATH || defaultChromiumPath();
const FULL_CHROMIUM = chromiumBuildOf(SESSION_CHROMIUM) === 'chromium' ? SESSION_CHROMIUM : '/usr/bin/chromium';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const BACK_TO_BACK = Number(process.env.BENCH_BACK_TO_BACK ?? 200);
const POOL_N = Number(process.env.BENCH_POOL_N ?? 2);
const RTT_SAMPLES = 200;
/** A service whose default pool keeps N members, and runs N invocations at once. */
const WARM_POOL_ENV = { BROWSERFN_WARM_POOL_SIZE: String(POOL_N), BROWSERFN_WARM_POOL_MAX: String(POOL_N), BROWSERFN_MAX_CONCURRENT_INVOCATIONS: String(POOL_N) };
/** BENCH_RECORD_SESSION=false: invocations ask for no session recording (browserSettings.recordSession). */
const INVOKE_BODY = process.env.BENCH_RECORD_SESSION === 'false' ? { sessionCreateParams: { browserSettings: { recordSession: false } } } : {};

const FUNCTIONS = `
import { defineFn } from 'browserfn';
import CDP from 'chrome-remote-interface';

async function onPage(ctx, work) {
  const client = await CDP({ target: ctx.session.connectUrl });
  try {
    const { targetInfos } = await client.Target.getTargets();
    const page = targetInfos.find((t) => t.type === 'page');
    const targetId = page ? page.targetId : (await client.Target.createTarget({ url: 'about:blank' })).targetId;
    const { sessionId } = await client.Target.attachToTarget({ targetId, flatten: true });
    return await work((expression) => client.send('Runtime.evaluate', { expression, returnByValue: true }, sessionId));
  } finally {
    await client.close();
  }
}

defineFn('eval', (ctx) => onPage(ctx, async (evaluate) => (await evaluate('1+1')).result.value));

defineFn('cdp-round-trip', (ctx) =>
  onPage(ctx, async (evaluate) => {
    const times = [];
    for (let i = 0; i < ${RTT_SAMPLES}; i += 1) {
      const started = performance.now();
      await evaluate('1+1');
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { p50: times[Math.floor(times.length / 2)], p95: times[Math.floor(times.length * 0.95)] };
  }),
);
`;

const EVAL_PROJECT = { 'index.ts': FUNCTIONS };

// The same Functions written for @browserbasehq/sdk-functions, installed from the lockfile of the
// test project written for it: that SDK asks for its invocation and posts its result with fetch, and
// logs around the handler, where this project's SDK uses http and logs nothing.
const SDK_FUNCTIONS_FIXTURE = fileURLToPath(new URL('../../test/fixtures/projects/sdk-functions', import.meta.url));
const SDK_FUNCTIONS_PROJECT: Record<string, string> = {
  'index.ts': FUNCTIONS.replace("from 'browserfn'", "from '@browserbasehq/sdk-functions'"),
  'package.json': readFileSync(join(SDK_FUNCTIONS_FIXTURE, 'package.json'), 'utf8'),
  'package-lock.json': readFileSync(join(SDK_FUNCTIONS_FIXTURE, 'package-lock.json'), 'utf8'),
};

// A project whose Functions drive the page with the libraries most users have: its pool's members
// preload both and try them out before they are ready (src/runtime/sandbox/page-driver-warm-up.ts).
const DRIVER_FUNCTIONS = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';

defineFn('playwright-eval', async (ctx) => {
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  try {
    return await browser.contexts()[0].pages()[0].evaluate('1+1');
  } finally {
    await browser.close();
  }
});

defineFn('puppeteer-eval', async (ctx) => {
  const browser = await puppeteer.connect({ browserWSEndpoint: ctx.session.connectUrl, defaultViewport: null });
  try {
    const [page] = await browser.pages();
    return await page.evaluate('1+1');
  } finally {
    await browser.disconnect();
  }
});
`;

export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/**
 * Launch Chromium the way a pod does and time until its DevTools endpoint is announced (the
 * baseline of the targets), and until a client connected to it has its first command answered:
 * the endpoint is announced before the browser has made its first page, and the first connect
 * waits for that. Then until 1+1 is evaluated in its first page, which waits for the page's
 * renderer: what a cold invocation's handler does, so the least a cold invocation can take.
 */
export async function bareChromiumLaunchMs(chromium = FULL_CHROMIUM): Promise<{ announced: number; answered: number; evaluated: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-chromium-'));
  const started = performance.now();
  const child = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--remote-debugging-port=0', `--user-data-dir=${dir}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        const announced = /DevTools listening on (ws:\/\/\S+)/.exec(err);
        if (announced) resolve(announced[1]);
      });
      child.on('exit', (code) => reject(new Error(`chromium exited with ${code}: ${err.slice(-500)}`)));
    });
    const announced = performance.now() - started;
    const client = await CDP({ target: endpoint, protocol: { domains: [] } as unknown as CDP.Protocol });
    await client.send('Browser.getVersion' as never);
    const answered = performance.now() - started;
    // The answers of the three commands below, in one shape: the client was made without the protocol's types.
    type Answer = { targetInfos: { targetId: string; type: string }[]; sessionId: string; result: { value?: unknown } };
    const send = client.send.bind(client) as unknown as (method: string, params?: object, sessionId?: string) => Promise<Answer>;
    const { targetInfos } = await send('Target.getTargets');
    const page = targetInfos.find((target) => target.type === 'page');
    if (!page) throw new Error('the bare Chromium has no page');
    const { sessionId } = await send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
    const { result } = await send('Runtime.evaluate', { expression: '1+1', returnByValue: true }, sessionId);
    const evaluated = performance.now() - started;
    if (result.value !== 2) throw new Error(`the bare Chromium evaluated 1+1 to ${JSON.stringify(result)}`);
    await client.close();
    return { announced, answered, evaluated };
  } finally {
    const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve).once('error', resolve));
    // The whole process group: its renderers and helpers write to the profile too.
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

interface Timed {
  /** Client-observed: POST invoke until GET shows COMPLETED. */
  totalMs: number;
  /** Server timestamps: created until the handler got its event. */
  handlerStartMs: number;
  results: unknown;
}

interface Unpolled {
  /** The client's POST until COMPLETED is stored. */
  totalMs: number;
  /** The invocation stored (the invoke accepted) until COMPLETED is stored. */
  acceptedMs: number;
}

interface Bench {
  svc: TestService;
  ids: Record<string, string>;
}

/** Starts a service with `project` published, measures on it, and stops it whatever the measuring did. */
async function measureOn<T>(env: Record<string, string>, project: Record<string, string>, measure: (bench: Bench) => Promise<T>): Promise<T> {
  // The bench's clients poll every 2 ms on purpose (its polled figures): past the API's rate per project.
  // Pods on their own network, as `serve` runs them by default (the tests' services use the host's).
  // The service is given the build sessions run: a test service reads its settings from what it is given alone.
  const svc = await startTestService({ BROWSERFN_API_RATE_PER_PROJECT: '0', BROWSERFN_SANDBOX_NETWORK: 'pasta', BROWSERFN_CHROMIUM_PATH: SESSION_CHROMIUM, ...env }, { captureLog: true });
  try {
    const build = await publish(svc, writeProject(project));
    if (build.status !== 'COMPLETED') throw new Error(`bench build failed: ${JSON.stringify(build.cause)}`);
    return await measure({ svc, ids: Object.fromEntries(build.builtFunctions!.map((fn) => [fn.name, fn.id])) });
  } finally {
    await svc.stop();
  }
}

/** POST …/invoke; the invocation's ID. */
async function invoke({ svc, ids }: Bench, name: string): Promise<string> {
  const created = await svc.request('POST', `/v1/functions/${ids[name]}/invoke`, INVOKE_BODY);
  if (created.status !== 202) throw new Error(`invoke: ${created.status} ${JSON.stringify(created.body)}`);
  return String(created.body.id);
}

async function invokeTimed(bench: Bench, name: string): Promise<Timed> {
  const { svc } = bench;
  const started = performance.now();
  const id = await invoke(bench, name);
  const done = await waitFor('invocation', async () => {
    const { body } = await svc.request('GET', `/v1/functions/invocations/${id}`);
    return body.status === 'COMPLETED' || body.status === 'FAILED' ? body : undefined;
  }, 120_000, 2);
  const totalMs = performance.now() - started;
  if (done.status !== 'COMPLETED') throw new Error(`bench invocation failed: ${JSON.stringify(done)}`);
  return { totalMs, handlerStartMs: Date.parse(done.startedAt) - Date.parse(done.createdAt), results: done.results };
}

/**
 * One invocation that nothing polls: the service's own watch says when COMPLETED is stored. The
 * client-observed figures add the polling's own CPU, taken from the invocation on the same cores,
 * and the client's read after COMPLETED, which waits behind the writes of the pool's refill
 * (docs/pools-measurements.md, both sections of 2026-11-27). `totalMs` counts from the client's POST;
 * `acceptedMs` from the invocation's storing (the invoke accepted: the measure), both to
 * COMPLETED stored, as the same watch sees them.
 */
async function invokeUnpolled(bench: Bench, name: string): Promise<Unpolled> {
  const invocations = bench.svc.service.cluster.resource<InvocationObject>(Kinds.Invocation);
  const addedAt = new Map<string, number>();
  let id: string | undefined;
  let ended!: (at: { ms: number; object: InvocationObject }) => void;
  const terminal = new Promise<{ ms: number; object: InvocationObject }>((resolve) => (ended = resolve));
  const current = await invocations.list('default');
  const watch = await invocations.watch('default', { resourceVersion: current.resourceVersion }, (event) => {
    const at = performance.now();
    if (event.type === 'ADDED') addedAt.set(event.object.metadata.name, at);
    if (id !== undefined && event.object.metadata.name === id && isTerminal(event.object)) ended({ ms: at, object: event.object });
  });
  try {
    const started = performance.now();
    id = (await invoke(bench, name)).toLowerCase();
    const { ms, object } = await Promise.race([terminal, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`invocation ${id} did not end within 120 s`)), 120_000).unref())]);
    if (object.status?.phase !== 'COMPLETED') throw new Error(`bench invocation did not complete: ${JSON.stringify(object.status)}`);
    const accepted = addedAt.get(id);
    if (accepted === undefined) throw new Error(`the watch saw no ADDED event of invocation ${id}`);
    return { totalMs: ms - started, acceptedMs: ms - accepted };
  } finally {
    await watch.stop();
  }
}

const defaultPool = (svc: TestService) => svc.service.cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).get('default', 'default');

/** Every member of the default pool ready and none starting, so no browser start competes with the measured one. */
async function poolReady(svc: TestService): Promise<void> {
  await waitFor('a ready pool', async () => {
    const status = (await defaultPool(svc))?.status;
    return status && status.ready === POOL_N && status.starting === 0 ? true : undefined;
  }, 120_000, 20);
}

/**
 * No pod of an earlier invocation left: its session's end (the recording's encoding, the browser's
 * kill, its folder's removal) takes both cores for a few hundred milliseconds after COMPLETED, and
 * a cold start measured meanwhile was 70-100 ms slower (docs/pools-measurements.md, twenty-fourth session).
 */
async function earlierPodsGone(svc: TestService): Promise<void> {
  const pods = svc.service.cluster.resource<PodObject>(Kinds.Pod);
  await waitFor('no pod of an earlier invocation', async () => ((await pods.list('default', { labelSelector: Labels.invocationName })).items.length === 0 ? true : undefined), 120_000, 20);
}

/**
 * Before a cold invocation: no earlier pod left, and with sandboxes made ahead (the default), one
 * ready, as it is for a cold invocation that does not follow another at once. The first cold pod of
 * a service shows the node agent the shape to make them for, so none is waited for before it.
 */
async function coldReady(svc: TestService, sandboxAhead: boolean): Promise<void> {
  await earlierPodsGone(svc);
  if (sandboxAhead && sandboxesMadeAhead(svc).length > 0) await sandboxReadyAhead(svc);
}

/**
 * `RUNS` invocations one at a time (after one that warms the OS caches), each once `ready` settles:
 * warm ones on a ready member of a settled pool (poolReady), cold ones as coldReady says.
 */
async function sequential(bench: Bench, ready: (svc: TestService) => Promise<void>, name = 'eval'): Promise<Timed[]> {
  const runs: Timed[] = [];
  for (let i = 0; i < RUNS + 1; i += 1) {
    await ready(bench.svc);
    const timed = await invokeTimed(bench, name);
    if (timed.results !== 2) throw new Error(`bench handler returned ${JSON.stringify(timed.results)}`);
    if (i > 0) runs.push(timed);
  }
  return runs;
}

/** `RUNS` invocations that nothing polls, each on a ready member of a settled pool. */
async function warmUnpolledRuns(bench: Bench): Promise<Unpolled[]> {
  const runs: Unpolled[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    await poolReady(bench.svc);
    runs.push(await invokeUnpolled(bench, 'eval'));
  }
  return runs;
}

/** Warm invocations of `eval`, polled by the client and then with nothing polling. */
async function warmEvalRuns(bench: Bench): Promise<{ polled: Timed[]; unpolled: Unpolled[] }> {
  const polled = await sequential(bench, poolReady);
  return { polled, unpolled: await warmUnpolledRuns(bench) };
}

/** `BACK_TO_BACK` invocations from `concurrency` clients, each invoking as soon as its last finished. */
async function backToBack(bench: Bench, concurrency: number): Promise<{ perSecond: number; p50: number; p95: number }> {
  let left = BACK_TO_BACK;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left > 0) {
        left -= 1;
        latencies.push((await invokeTimed(bench, 'eval')).totalMs);
      }
    }),
  );
  return { perSecond: BACK_TO_BACK / ((performance.now() - started) / 1000), p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

/** RSS and PSS (shared pages split between their users) of every process of one idle member. */
async function idleMemberMemory(svc: TestService): Promise<{ rssMiB: number; pssMiB: number; processes: number }> {
  const pods = await svc.service.cluster.resource<PodObject>(Kinds.Pod).list('default', { labelSelector: `${Labels.pool}=default,!${Labels.invocationName}` });
  const member = pods.items.find((pod) => pod.metadata.annotations?.['browserfn.dev/ready-at']);
  if (!member) throw new Error('no ready member to measure');
  return treeMemory(new Set([sandboxPidOf(svc, member.metadata.name)]));
}

/** RSS and PSS of every process of the trees below `roots`. */
function treeMemory(roots: ReadonlySet<number>): { rssMiB: number; pssMiB: number; processes: number } {
  const tree = processTreeOf(roots);
  let rss = 0;
  let pss = 0;
  let processes = 0;
  for (const { pid } of tree) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      processes += 1;
    } catch {
      // gone, or a kernel thread
    }
  }
  return { rssMiB: rss / 1024, pssMiB: pss / 1024, processes };
}

/** The process the node agent started for a pod (its sandbox), from the service's log. */
function sandboxPidOf(svc: TestService, pod: string): number {
  for (const line of svc.logLines) {
    try {
      const record = JSON.parse(line) as { pod?: string; pids?: number[] };
      if (record.pod === `default/${pod}` && record.pids?.length) return record.pids[0];
    } catch {
      // not JSON
    }
  }
  throw new Error(`the node agent logged no start of pod ${pod}`);
}

const row = (name: string, values: (number | string)[]) => console.log(name.padEnd(64) + values.map((v) => (typeof v === 'number' ? v.toFixed(v < 10 ? 2 : 0) : v).padStart(11)).join(''));

export async function runInvocationBench(): Promise<void> {
  const launchMs: number[] = [];
  const answeredMs: number[] = [];
  const evaluatedMs: number[] = [];
  const sessionBuild = { launchMs: [] as number[], evaluatedMs: [] as number[] };
  for (let i = 0; i < RUNS; i += 1) {
    const { announced, answered, evaluated } = await bareChromiumLaunchMs();
    launchMs.push(announced);
    answeredMs.push(answered);
    evaluatedMs.push(evaluated);
    if (SESSION_CHROMIUM === FULL_CHROMIUM) continue;
    const shell = await bareChromiumLaunchMs(SESSION_CHROMIUM);
    sessionBuild.launchMs.push(shell.announced);
    sessionBuild.evaluatedMs.push(shell.evaluated);
  }

  const coldEnv = { BROWSERFN_WARM_POOL_SIZE: '0', BROWSERFN_MAX_CONCURRENT_INVOCATIONS: String(POOL_N) };
  const coldRunsOn = (sandboxAhead: boolean) => async (cold: Bench) => {
    const ready = (svc: TestService) => coldReady(svc, sandboxAhead);
    const coldRuns = await sequential(cold, ready);
    const coldUnpolled: Unpolled[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      await ready(cold.svc);
      coldUnpolled.push(await invokeUnpolled(cold, 'eval'));
    }
    return { coldRuns, coldUnpolled };
  };
  const { coldRuns, coldUnpolled, coldLoad, aheadMemory } = await measureOn(coldEnv, EVAL_PROJECT, async (cold) => {
    const runs = await coldRunsOn(true)(cold);
    const ready = await sandboxReadyAhead(cold.svc);
    return { ...runs, aheadMemory: treeMemory(new Set([ready.pid, ...ready.networkPids])), coldLoad: await backToBack(cold, POOL_N) };
  });
  const nothingAhead = await measureOn({ ...coldEnv, BROWSERFN_SANDBOX_AHEAD: '0' }, EVAL_PROJECT, coldRunsOn(false));

  const { warmRuns, warmUnpolled, memory, rtt, warmLoad } = await measureOn(WARM_POOL_ENV, EVAL_PROJECT, async (warm) => {
    const warmRuns = await sequential(warm, poolReady);
    const warmUnpolled = await warmUnpolledRuns(warm);
    await poolReady(warm.svc);
    const memory = await idleMemberMemory(warm.svc);
    const rtt = (await invokeTimed(warm, 'cdp-round-trip')).results as { p50: number; p95: number };
    await poolReady(warm.svc);
    return { warmRuns, warmUnpolled, memory, rtt, warmLoad: await backToBack(warm, POOL_N) };
  });

  // The embedded store syncing every write (docs/store.md), where the default syncs at checkpoints.
  const synced = await measureOn({ ...WARM_POOL_ENV, BROWSERFN_STORE_SYNC: 'full' }, EVAL_PROJECT, warmEvalRuns);
  const sdkFunctions = await measureOn(WARM_POOL_ENV, SDK_FUNCTIONS_PROJECT, warmEvalRuns);

  const { playwrightRuns, puppeteerRuns, driverMemory } = await measureOn(WARM_POOL_ENV, { 'index.ts': DRIVER_FUNCTIONS }, async (drivers) => {
    const playwrightRuns = await sequential(drivers, poolReady, 'playwright-eval');
    const puppeteerRuns = await sequential(drivers, poolReady, 'puppeteer-eval');
    await poolReady(drivers.svc);
    return { playwrightRuns, puppeteerRuns, driverMemory: await idleMemberMemory(drivers.svc) };
  });

  const bare = percentile(launchMs, 50);
  const p = (runs: Timed[], key: keyof Omit<Timed, 'results'>, q: number) => percentile(runs.map((r) => r[key]), q);
  const u = (runs: Unpolled[], key: keyof Unpolled, q: number) => percentile(runs.map((r) => r[key]), q);
  console.log(`\n== Invocations (${RUNS} sequential runs each; pool and concurrency N = ${POOL_N}; same machine, same run) ==`);
  row('measure', ['p50 ms', 'p95 ms', 'x bare']);
  row('bare Chromium launch → CDP ready (baseline)', [bare, percentile(launchMs, 95), 1]);
  row('bare Chromium launch → first CDP command answered', [percentile(answeredMs, 50), percentile(answeredMs, 95), percentile(answeredMs, 50) / bare]);
  row('bare Chromium launch → 1+1 evaluated in its page', [percentile(evaluatedMs, 50), percentile(evaluatedMs, 95), percentile(evaluatedMs, 50) / bare]);
  const sessionName = `bare ${chromiumBuildOf(SESSION_CHROMIUM)} (the build sessions run)`;
  if (sessionBuild.launchMs.length > 0) {
    row(`${sessionName} → CDP ready`, [percentile(sessionBuild.launchMs, 50), percentile(sessionBuild.launchMs, 95), percentile(sessionBuild.launchMs, 50) / bare]);
    row(`${sessionName} → 1+1 evaluated`, [percentile(sessionBuild.evaluatedMs, 50), percentile(sessionBuild.evaluatedMs, 95), percentile(sessionBuild.evaluatedMs, 50) / bare]);
  }
  row('cold invocation, pools off (invoke → COMPLETED)', [p(coldRuns, 'totalMs', 50), p(coldRuns, 'totalMs', 95), p(coldRuns, 'totalMs', 50) / bare]);
  row('cold invocation, nothing polling (invoke → COMPLETED stored)', [u(coldUnpolled, 'totalMs', 50), u(coldUnpolled, 'totalMs', 95), u(coldUnpolled, 'totalMs', 50) / bare]);
  row('cold invocation, nothing polling (accepted → COMPLETED stored)', [u(coldUnpolled, 'acceptedMs', 50), u(coldUnpolled, 'acceptedMs', 95), u(coldUnpolled, 'acceptedMs', 50) / bare]);
  row('cold, nothing made ahead (SANDBOX_AHEAD=0; invoke → COMPLETED)', [p(nothingAhead.coldRuns, 'totalMs', 50), p(nothingAhead.coldRuns, 'totalMs', 95), p(nothingAhead.coldRuns, 'totalMs', 50) / bare]);
  row('cold, nothing made ahead, nothing polling (from accepted)', [u(nothingAhead.coldUnpolled, 'acceptedMs', 50), u(nothingAhead.coldUnpolled, 'acceptedMs', 95), u(nothingAhead.coldUnpolled, 'acceptedMs', 50) / bare]);
  row('warm invocation, ready member (invoke → COMPLETED)', [p(warmRuns, 'totalMs', 50), p(warmRuns, 'totalMs', 95), p(warmRuns, 'totalMs', 50) / bare]);
  row('warm invocation, nothing polling (invoke → COMPLETED stored)', [u(warmUnpolled, 'totalMs', 50), u(warmUnpolled, 'totalMs', 95), u(warmUnpolled, 'totalMs', 50) / bare]);
  row('warm invocation, nothing polling (accepted → COMPLETED stored)', [u(warmUnpolled, 'acceptedMs', 50), u(warmUnpolled, 'acceptedMs', 95), u(warmUnpolled, 'acceptedMs', 50) / bare]);
  row('warm invocation, store syncing every write (STORE_SYNC=full)', [p(synced.polled, 'totalMs', 50), p(synced.polled, 'totalMs', 95), p(synced.polled, 'totalMs', 50) / bare]);
  row('warm invocation, same, nothing polling', [u(synced.unpolled, 'totalMs', 50), u(synced.unpolled, 'totalMs', 95), u(synced.unpolled, 'totalMs', 50) / bare]);
  row('warm invocation, @browserbasehq/sdk-functions handler', [p(sdkFunctions.polled, 'totalMs', 50), p(sdkFunctions.polled, 'totalMs', 95), p(sdkFunctions.polled, 'totalMs', 50) / bare]);
  row('warm invocation, same, nothing polling (from invoke accepted)', [u(sdkFunctions.unpolled, 'acceptedMs', 50), u(sdkFunctions.unpolled, 'acceptedMs', 95), u(sdkFunctions.unpolled, 'acceptedMs', 50) / bare]);
  row('warm invocation, Playwright handler (connectOverCDP, evaluate)', [p(playwrightRuns, 'totalMs', 50), p(playwrightRuns, 'totalMs', 95), p(playwrightRuns, 'totalMs', 50) / bare]);
  row('warm invocation, Puppeteer handler (connect, evaluate)', [p(puppeteerRuns, 'totalMs', 50), p(puppeteerRuns, 'totalMs', 95), p(puppeteerRuns, 'totalMs', 50) / bare]);
  row('handler start, cold (createdAt → handler has its event)', [p(coldRuns, 'handlerStartMs', 50), p(coldRuns, 'handlerStartMs', 95), '']);
  row('handler start, cold, nothing made ahead', [p(nothingAhead.coldRuns, 'handlerStartMs', 50), p(nothingAhead.coldRuns, 'handlerStartMs', 95), '']);
  row('handler start, warm (createdAt → handler has its event)', [p(warmRuns, 'handlerStartMs', 50), p(warmRuns, 'handlerStartMs', 95), '']);
  row(`handler → browser CDP round trip (Runtime.evaluate, ${RTT_SAMPLES} samples)`, [rtt.p50, rtt.p95, '']);
  console.log(`\n${BACK_TO_BACK} back-to-back invocations, ${POOL_N} clients:`);
  row('', ['per second', 'p50 ms', 'p95 ms']);
  row('pools off', [coldLoad.perSecond, coldLoad.p50, coldLoad.p95]);
  row(`pool of ${POOL_N}`, [warmLoad.perSecond, warmLoad.p50, warmLoad.p95]);
  console.log(`\none idle pool member: ${memory.processes} processes, RSS ${memory.rssMiB.toFixed(0)} MiB (shared pages counted in each), PSS ${memory.pssMiB.toFixed(0)} MiB`);
  console.log(`one idle member preloading Playwright and Puppeteer: ${driverMemory.processes} processes, PSS ${driverMemory.pssMiB.toFixed(0)} MiB`);
  console.log(`one sandbox made ahead (no browser; pools off or not, one per node): ${aheadMemory.processes} processes, PSS ${aheadMemory.pssMiB.toFixed(0)} MiB`);
  console.log(`targets: warm ≤ 0.1x bare, cold ≤ 1.3x bare, CDP round trip ≤ 1 ms (bare: the full Chromium, ${FULL_CHROMIUM})`);
  const floor = percentile(sessionBuild.evaluatedMs.length > 0 ? sessionBuild.evaluatedMs : evaluatedMs, 50);
  console.log(
    `cold invocations against a bare ${chromiumBuildOf(SESSION_CHROMIUM)}'s 1+1 in its page (${SESSION_CHROMIUM}, the build sessions run), the least they can take: ` +
      `${(p(coldRuns, 'totalMs', 50) / floor).toFixed(2)}x, nothing polling ${(u(coldUnpolled, 'totalMs', 50) / floor).toFixed(2)}x`,
  );
}
