// `make bench ARGS=load`: many invocations submitted at once across three projects of unequal
// demand (60 %, 30 %, 10 %) on a few slots, each a real browser pod. Checks and prints: all
// complete, none runs twice (the handler counts itself on a local server), admission stays fair
// (sampled every second: no project waits below its share while another holds more than its
// share), the p50/p99 of GET invocation and of the event loop's delay while it runs, and once all
// ended the pod processes still running (orphans) and the zombies under this process.
// BENCH_LOAD_N (2000), BENCH_LOAD_SLOTS (8).
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Kinds } from '../src/cluster/objects.js';
import { isTerminal } from '../src/functions/invocations.js';
import type { InvocationObject } from '../src/schemas/resources.js';
import { startTestService, waitFor, type TestService } from '../test/support/service.js';
import { writeProject } from '../test/support/projects.js';
import { publish } from '../test/support/publish.js';
import { processTreeUnder } from '../test/support/processes.js';
import { percentile } from './invocations.js';

const N = Number(process.env.BENCH_LOAD_N ?? 2000);
const SLOTS = Number(process.env.BENCH_LOAD_SLOTS ?? 8);
const PROJECTS = [
  { name: 'load-a', key: 'load-key-a', part: 0.6 },
  { name: 'load-b', key: 'load-key-b', part: 0.3 },
  { name: 'load-c', key: 'load-key-c', part: 0.1 },
];
const SUBMITTERS = 32;

const HANDLER = `
import { defineFn } from 'browserfn';
defineFn('count-me', async (ctx, params: { counter: string }) => {
  await fetch(params.counter + '/' + ctx.invocation.id);
  return 1;
});
`;

interface Sample {
  running: number[];
  pending: number[];
}

export async function runLoadBench(): Promise<void> {
  const hits = new Map<string, number>();
  const counter = createServer((req, res) => {
    const id = (req.url ?? '/').slice(1);
    hits.set(id, (hits.get(id) ?? 0) + 1);
    res.end('ok');
  });
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
  const counterUrl = `http://127.0.0.1:${(counter.address() as AddressInfo).port}`;

  const svc = await startTestService({
    // 32 clients submitting and polling measure the invocation path, not the API's rate per project.
    BROWSERFN_API_RATE_PER_PROJECT: '0',
    BROWSERFN_API_KEYS: PROJECTS.map((p) => `${p.key}:${p.name}`).join(','),
    BROWSERFN_MAX_CONCURRENT_INVOCATIONS: String(SLOTS),
    BROWSERFN_MAX_QUEUED_INVOCATIONS_PER_PROJECT: String(N),
    // Counted from the cluster store at the end: nothing may be archived away before then.
    BROWSERFN_FINISHED_TTL_SECONDS: String(24 * 3600),
  });
  try {
    const functionIds: string[] = [];
    for (const project of PROJECTS) {
      const build = await publish(svc, writeProject({ 'index.ts': HANDLER }), 'index.ts', { 'x-svc-api-key': project.key });
      if (build.status !== 'COMPLETED') throw new Error(`load bench build failed: ${JSON.stringify(build.cause)}`);
      functionIds.push(build.builtFunctions![0].id);
    }

    // Every invocation, in a random order across projects, by a pool of submitting clients.
    const plan = PROJECTS.flatMap((project, i) => Array.from({ length: Math.round(N * project.part) }, () => i)).sort(() => Math.random() - 0.5);
    const ids: { id: string; project: number }[] = [];
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: SUBMITTERS }, async () => {
        while (next < plan.length) {
          const project = plan[next++];
          const created = await svc.request('POST', `/v1/functions/${functionIds[project]}/invoke`, { params: { counter: counterUrl } }, { 'x-svc-api-key': PROJECTS[project].key });
          if (created.status !== 202) throw new Error(`invoke: ${created.status} ${JSON.stringify(created.body)}`);
          ids.push({ id: created.body.id, project });
        }
      }),
    );
    const submittedMs = performance.now() - started;

    const samples: Sample[] = [];
    const getLatencies: number[] = [];
    // The service, its node agent and this bench share one event loop: its delay is what every request waits behind.
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    let done = false;
    const sampler = (async () => {
      while (!done) {
        samples.push(await sample(svc));
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    })();
    const reader = (async () => {
      while (!done) {
        const { id, project } = ids[Math.floor(Math.random() * ids.length)];
        const t = performance.now();
        await svc.request('GET', `/v1/functions/invocations/${id}`, undefined, { 'x-svc-api-key': PROJECTS[project].key });
        getLatencies.push(performance.now() - t);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    await waitFor('every invocation to end', async () => {
      const { running, pending } = await sample(svc);
      return [...running, ...pending].every((n) => n === 0) ? true : undefined;
    }, 6 * 3600_000, 2000);
    done = true;
    loopDelay.disable();
    await Promise.all([sampler, reader]);
    const totalMs = performance.now() - started;

    const all = (await svc.service.cluster.resource<InvocationObject>(Kinds.Invocation).list(undefined)).items;
    const completed = all.filter((inv) => inv.status?.phase === 'COMPLETED').length;
    const failed = all.filter((inv) => inv.status?.phase === 'FAILED');
    const twice = [...hits.values()].filter((n) => n > 1).length;
    const retried = all.filter((inv) => (inv.status?.attempts ?? 0) > 1).length;
    const unfair = samples.filter(unfairSample).length;
    const leftRunning = processTreeUnder(svc.dataDir);
    const zombies = zombiesUnder(process.pid);

    console.log(`\n== Load: ${ids.length} invocations submitted at once across ${PROJECTS.length} projects (${PROJECTS.map((p) => `${Math.round(p.part * 100)} %`).join(' / ')}), ${SLOTS} slots ==`);
    console.log(`submitted in ${(submittedMs / 1000).toFixed(1)} s; all ended after ${(totalMs / 1000).toFixed(0)} s (${(ids.length / (totalMs / 1000)).toFixed(2)} per second)`);
    console.log(`completed ${completed}, failed ${failed.length}${failed.length ? ` (first cause: ${JSON.stringify(failed[0].status?.cause)})` : ''}, handlers that ran more than once ${twice}, invocations retried ${retried}, handlers that never ran ${ids.length - hits.size}`);
    // Running invocations are never preempted: a project that arrives late reaches its share as the others' runs end.
    console.log(`fair admission: ${unfair} of ${samples.length} one-second samples had a project waiting below its share while another held more (no preemption: a share is reached as running invocations end)`);
    console.log(`after the last one ended: ${leftRunning.length} pod processes still running (${leftRunning.filter((p) => /chrom/.test(p.cmdline)).length} of them Chromium), ${zombies} zombies under this process`);
    console.log(`GET invocation under load: p50 ${percentile(getLatencies, 50).toFixed(1)} ms, p99 ${percentile(getLatencies, 99).toFixed(1)} ms (${getLatencies.length} requests)`);
    const loopMs = (nanoseconds: number): string => (nanoseconds / 1e6).toFixed(1);
    console.log(`event loop delay (service, node agent and this bench in one process): p50 ${loopMs(loopDelay.percentile(50))} ms, p99 ${loopMs(loopDelay.percentile(99))} ms, max ${loopMs(loopDelay.max)} ms`);
  } finally {
    await svc.stop();
    await new Promise((resolve) => counter.close(resolve));
  }
}

async function sample(svc: TestService): Promise<Sample> {
  const running = PROJECTS.map(() => 0);
  const pending = PROJECTS.map(() => 0);
  for (const inv of (await svc.service.cluster.resource<InvocationObject>(Kinds.Invocation).list(undefined)).items) {
    const project = PROJECTS.findIndex((p) => p.name === inv.metadata.namespace);
    if (project < 0 || isTerminal(inv)) continue;
    if (inv.status?.podName) running[project] += 1;
    else pending[project] += 1;
  }
  return { running, pending };
}

/** A project with work waiting holds fewer slots than its share while another holds more than its share. */
function unfairSample({ running, pending }: Sample): boolean {
  const active = running.filter((n, i) => n > 0 || pending[i] > 0).length;
  if (active === 0) return false;
  const share = Math.floor(SLOTS / active);
  const starved = running.some((n, i) => pending[i] > 0 && n < share);
  const greedy = running.some((n) => n > Math.ceil(SLOTS / active));
  return starved && greedy;
}

/** Zombie processes among the descendants of `root` (children nobody reaped). */
function zombiesUnder(root: number): number {
  const children = new Map<number, { pid: number; zombie: boolean }[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may hold spaces, so read after the last ')'.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const list = children.get(Number(ppid)) ?? [];
      list.push({ pid: Number(entry), zombie: state === 'Z' });
      children.set(Number(ppid), list);
    } catch {
      // exited meanwhile
    }
  }
  let zombies = 0;
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (child.zombie) zombies += 1;
      else queue.push(child.pid);
    }
  }
  return zombies;
}
