// Warm pools end to end on `serve` (embedded store, local node agent, real Chromium): matching
// invocations run on pre-started members, each member serves one invocation and is replaced, a
// member whose browser dies is replaced and never handed out, a launch no pool has starts cold,
// pools scale to zero and back, a member claimed while it starts gets its invocation at once, and a
// claimed member that never reports fails its invocation with INTERNAL_ERROR at the deadline while
// the pool recovers; a member that tries Playwright and Puppeteer out hands over a page neither met;
// a member whose code fails to load ahead waits to fail its invocation, its code's process stopped.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import { Kinds, newObject } from '../../src/cluster/objects.js';
import { Labels, type BrowserPoolObject, type BrowserPoolSpec, type FunctionObject, type InvocationObject } from '../../src/schemas/resources.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { processTreeOf, type FoundProcess } from '../support/processes.js';
import { writeProject } from '../support/projects.js';
import { publish, waitInvocation } from '../support/publish.js';

const FN = `
import { defineFn } from 'browserfn';
import CDP from 'chrome-remote-interface';
defineFn('window-width', async (ctx) => {
  const client = await CDP({ target: ctx.session.connectUrl });
  try {
    const { targetInfos } = await client.Target.getTargets();
    const page = targetInfos.find((t) => t.type === 'page');
    const { sessionId } = await client.Target.attachToTarget({ targetId: page.targetId, flatten: true });
    const { result } = await client.send('Runtime.evaluate', { expression: 'window.outerWidth', returnByValue: true }, sessionId);
    return result.value;
  } finally {
    await client.close();
  }
});
`;

const PLAYWRIGHT_FN = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';
defineFn('playwright-width', async (ctx) => {
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  try {
    return await browser.contexts()[0].pages()[0].evaluate(() => window.outerWidth);
  } finally {
    await browser.close();
  }
});
`;

// What the handler's browser looks like to Playwright after its member tried Playwright and
// Puppeteer out: how many contexts and pages, and the first page's id, history and worlds.
const DRIVERS_FN = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
defineFn('first-page', async (ctx) => {
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  try {
    const contexts = browser.contexts();
    const pages = contexts[0].pages();
    const cdp = await contexts[0].newCDPSession(pages[0]);
    const worlds: string[] = [];
    cdp.on('Runtime.executionContextCreated', ({ context }) => worlds.push(context.name));
    await cdp.send('Runtime.enable');
    const worldsBefore = [...worlds];
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    const history = await pages[0].evaluate(() => window.history.length);
    await pages[0].goto('data:text/html,<title>first</title><p>first page</p>');
    return { contexts: contexts.length, pages: pages.length, history, worlds: worldsBefore, pageId: targetInfo.targetId, puppeteer: typeof puppeteer.connect };
  } finally {
    await browser.close();
  }
});
`;

// Code whose import fails in a pod (its build's introspection imports it as well, and finds its Function).
const FAILS_TO_LOAD_FN = `
import { defineFn } from 'browserfn';
if (process.env.BB_FUNCTIONS_PHASE === 'runtime') throw new Error('this code fails once it runs in a pod');
defineFn('fails-to-load', async () => 'never');
`;

// In a pod its top level never ends (a timer keeps the process busy) and never asks for its invocation.
const NEVER_LOADS_FN = `
import { defineFn } from 'browserfn';
if (process.env.BB_FUNCTIONS_PHASE === 'runtime') {
  setInterval(() => undefined, 50);
  await new Promise(() => undefined);
}
defineFn('never-loads', async () => 'never');
`;

describe('warm pools (embedded, real Chromium)', function () {
  this.timeout(600_000);
  let svc: TestService;
  let functionId: string;

  before(async () => {
    svc = await startTestService({ BROWSERFN_WARM_POOL_SIZE: '2', BROWSERFN_WARM_POOL_MAX: '2' }, { captureLog: true });
    const build = await publish(svc, writeProject({ 'index.ts': FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    functionId = build.builtFunctions![0].id;
  });
  after(async () => {
    await svc?.stop();
  });

  const pools = () => svc.service.cluster.resource<BrowserPoolObject>(Kinds.BrowserPool);
  const pods = () => svc.service.cluster.resource<PodObject>(Kinds.Pod);
  const membersOf = async (pool: string) => (await pods().list('default', { labelSelector: `${Labels.pool}=${pool},!${Labels.invocationName}` })).items;
  const readyMembers = async (pool: string, count: number, besides: string[] = []) =>
    waitFor(`${count} ready member(s) of pool ${pool}`, async () => {
      const ready = (await membersOf(pool)).filter((pod) => pod.metadata.annotations?.['browserfn.dev/ready-at'] && !pod.metadata.deletionTimestamp && !besides.includes(pod.metadata.name));
      return ready.length >= count ? ready.map((pod) => pod.metadata.name) : undefined;
    }, 120_000, 100);
  const podOf = async (invocationId: string) => (await svc.service.cluster.resource<InvocationObject>(Kinds.Invocation).get('default', invocationId))!.status!.podName!;

  /** Publishes one Function's `source`, and makes pool `name` of one member that loads its code ahead, launched as `launch`. */
  async function publishWithPool(source: string, name: string, launch: BrowserPoolSpec['launch']) {
    const build = await publish(svc, writeProject({ 'index.ts': source }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const { items } = await svc.service.cluster.resource<FunctionObject>(Kinds.Function).list('default');
    const version = items.find((fn) => fn.metadata.uid === build.builtFunctions![0].id)!.spec.version!;
    await createPool(name, { minIdle: 1, maxIdle: 1, preloadArtifact: version.bundleConfigMap, launch });
    return build;
  }

  async function invoke(body: object = {}): Promise<string> {
    const res = await svc.request('POST', `/v1/functions/${functionId}/invoke`, body);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    return res.body.id as string;
  }

  async function createPool(name: string, spec: BrowserPoolSpec): Promise<void> {
    await pools().create(newObject<BrowserPoolObject>(Kinds.BrowserPool, { name, namespace: 'default' }, { spec }));
  }

  it('keeps a default pool once a Function is published, and reports its members in status', async () => {
    const pool = await waitFor('the default pool with 2 ready members', async () => {
      const found = await pools().get('default', 'default');
      return found?.status?.ready === 2 ? found : undefined;
    }, 120_000);
    assert.equal(pool.spec.minIdle, 2);
    assert.deepEqual(pool.spec.preload, ['chrome-remote-interface'], 'members load ahead what the published Function imports');
    const [fn] = (await svc.service.cluster.resource<FunctionObject>(Kinds.Function).list('default')).items;
    assert.equal(pool.spec.preloadArtifact, fn.spec.version?.bundleConfigMap, 'and its code');
    for (const member of await membersOf('default')) assert.equal(member.spec.containers[0].env?.find((e) => e.name === 'BROWSERFN_PRELOAD')?.value, 'chrome-remote-interface');
    assert.equal(pool.status?.desired, 2);
    assert.equal(pool.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  });

  it('runs matching invocations on ready members, each member serving exactly one, and refills the pool', async () => {
    const served = new Set<string>();
    for (let i = 0; i < 4; i += 1) {
      // Every idle member ready (one above demand may linger a while after a burst).
      await readyMembers('default', 2);
      const ready = (await membersOf('default')).map((pod) => pod.metadata.name);
      const id = await invoke();
      const done = await waitInvocation(svc, id);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
      assert.equal(typeof done.results, 'number', 'the window width');
      const podName = await podOf(id);
      assert.ok(ready.includes(podName), `invocation ${i} ran on ${podName}, not on one of the ready members ${ready.join(', ')}`);
      assert.ok(!served.has(podName), `member ${podName} served a second invocation`);
      served.add(podName);
      const said = podLogRecords(svc, podName).map((record) => record.msg);
      const [unpacked, asked, readied, handed] = ['artifact unpacked', 'function code loaded and asked for its invocation', 'pool member ready; waiting to be claimed', 'invocation handed to the function code'].map((msg) => said.indexOf(msg));
      assert.ok(unpacked >= 0 && unpacked < asked && asked < readied && readied < handed, `the member loaded the Function's code before it was ready: ${JSON.stringify(said)}`);
      assert.ok(!said.includes('artifact came with the assignment and is verified'), 'the assignment did not bring the artifact again');
      await waitFor(`member ${podName} to be gone after its invocation`, async () => ((await pods().get('default', podName)) ? undefined : true));
    }
    const refilled = await readyMembers('default', 2);
    assert.ok(refilled.every((name) => !served.has(name)), 'the pool refills with new members');
    const phases = await phaseCounts('warm');
    for (const phase of ['queued', 'start', 'handler', 'report']) assert.ok(phases[phase] >= 4, `phase ${phase} of 4 warm invocations measured: ${JSON.stringify(phases)}`);
  });

  it('starts an invocation whose launch no pool has cold, with the browser it asked for', async () => {
    const id = await invoke({ sessionCreateParams: { browserSettings: { viewport: { width: 1111, height: 700 } } } });
    const done = await waitInvocation(svc, id);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
    assert.equal(done.results, 1111);
    assert.match(await podOf(id), /-a1$/, 'a pod made for the invocation');
    const phases = await phaseCounts('cold');
    for (const phase of ['queued', 'start', 'handler', 'report']) assert.ok(phases[phase] >= 1, `phase ${phase} of the cold invocation measured: ${JSON.stringify(phases)}`);
  });

  /** How many invocations each phase histogram counted, for invocations whose browser started `start`. */
  async function phaseCounts(start: 'warm' | 'cold'): Promise<Record<string, number>> {
    const text = await svc.metrics();
    const counts: Record<string, number> = {};
    for (const match of text.matchAll(/^browserfn_invocation_phase_seconds_count\{phase="(\w+)",start="(\w+)"\} (\d+)$/gm)) {
      if (match[2] === start) counts[match[1]] = Number(match[3]);
    }
    return counts;
  }

  it('replaces an idle member whose browser was killed and never hands it out', async () => {
    const [victim] = await readyMembers('default', 2);
    const chromium = chromiumOfPod(svc, victim);
    process.kill(chromium, 'SIGKILL');
    await waitFor(`member ${victim} to be replaced`, async () => ((await pods().get('default', victim)) ? undefined : true));
    const ready = await readyMembers('default', 2);
    assert.ok(!ready.includes(victim));
    const id = await invoke();
    const done = await waitInvocation(svc, id);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
    assert.notEqual(await podOf(id), victim);
  });

  it('scales a pool to zero after idleSeconds without use, and back up when a matching invocation arrives', async () => {
    await createPool('wide', { minIdle: 1, maxIdle: 1, idleSeconds: 2, launch: { viewport: { width: 1280, height: 720 } } });
    await waitFor('pool wide scaled to zero', async () => {
      const pool = await pools().get('default', 'wide');
      return pool?.status?.desired === 0 && (await membersOf('wide')).length === 0 ? true : undefined;
    }, 60_000);
    const id = await invoke({ sessionCreateParams: { browserSettings: { viewport: { width: 1280, height: 720 } } } });
    const podName = await waitFor('a pod for the invocation', async () => (await svc.service.cluster.resource<InvocationObject>(Kinds.Invocation).get('default', id))?.status?.podName);
    // No member was ready: it starts cold, or on the member its arrival made the pool start.
    if (!podName.endsWith('-a1')) assert.equal((await svc.service.cluster.resource<PodObject>(Kinds.Pod).get('default', podName))?.metadata.labels?.[Labels.pool], 'wide', `${podName} is a cold pod or a member of pool wide`);
    await waitFor('pool wide back to one member', async () => ((await pools().get('default', 'wide'))?.status?.desired === 1 ? true : undefined), 30_000);
    const done = await waitInvocation(svc, id);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
    assert.equal(done.results, 1280);
    await waitFor('pool wide back at zero once unused again', async () => ((await pools().get('default', 'wide'))?.status?.desired === 0 && (await membersOf('wide')).length === 0 ? true : undefined), 60_000);
    await pools().delete('default', 'wide');
  });

  for (const codeAhead of [false, true]) {
    it(`hands an invocation that claims a member still starting to that member at once, before it would have been ready${codeAhead ? ' (its code loaded ahead)' : ''}`, async () => {
      const name = codeAhead ? 'late-code' : 'late';
      const width = codeAhead ? 1025 : 1024;
      const preloadArtifact = codeAhead ? (await svc.service.cluster.resource<FunctionObject>(Kinds.Function).list('default')).items[0].spec.version!.bundleConfigMap : undefined;
      await createPool(name, { minIdle: 1, maxIdle: 1, launch: { viewport: { width, height: 600 } }, ...(preloadArtifact ? { preloadArtifact } : {}) });
      // Its sandbox started (so every informer has seen it), its agent still preparing.
      const member = await waitFor(`a member of pool ${name} started`, async () => {
        const [pod] = await membersOf(name);
        return pod && podLogRecords(svc, pod.metadata.name).some((record) => Array.isArray(record.pids)) ? pod : undefined;
      }, 60_000, 5);
      assert.equal(member.metadata.annotations?.['browserfn.dev/ready-at'], undefined, 'the member is still starting');
      const id = await invoke({ sessionCreateParams: { browserSettings: { viewport: { width, height: 600 } } } });
      const done = await waitInvocation(svc, id);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
      assert.equal(done.results, width);
      assert.equal(await podOf(id), member.metadata.name, 'it ran on the starting member');
      const said = podLogRecords(svc, member.metadata.name).map((record) => record.msg);
      assert.ok(said.includes('pool member claimed while it starts'), `the member learned of its claim only once ready: ${JSON.stringify(said)}`);
      assert.ok(!said.includes('pool member ready; waiting to be claimed'));
      await pools().delete('default', name);
    });
  }

  it('fails an invocation whose claimed member never reports with INTERNAL_ERROR at the deadline, and the pool recovers', async function () {
    this.timeout(400_000);
    await createPool('frozen', { minIdle: 1, maxIdle: 1, idleSeconds: 0, launch: { viewport: { width: 640, height: 480 } } });
    const [member] = await readyMembers('frozen', 1);
    // The member's agent and code loader stop; its browser lives on, so nothing else notices.
    const stopped = podProcessesBesidesChromium(svc, member);
    for (const pid of stopped) process.kill(pid, 'SIGSTOP');
    await waitFor('the member\'s processes stopped', async () => (stopped.every((pid) => processState(pid) === 'T') ? true : undefined), 10_000, 20);
    const id = await invoke({ sessionCreateParams: { timeout: 60, browserSettings: { viewport: { width: 640, height: 480 } } } });
    assert.equal(await waitFor('the claim', async () => (await svc.service.cluster.resource<InvocationObject>(Kinds.Invocation).get('default', id))?.status?.podName), member);
    const done = await waitInvocation(svc, id, 300_000);
    assert.equal(done.status, 'FAILED', JSON.stringify(done));
    assert.equal(done.cause?.code, 'INTERNAL_ERROR', JSON.stringify(done));
    const ready = await readyMembers('frozen', 1, [member]);
    assert.ok(!ready.includes(member));
    await pools().delete('default', 'frozen');
  });

  it('runs a Function importing a package its member did not load ahead, and widens the default pool\'s preload to it', async () => {
    const build = await publish(svc, writeProject({ 'index.ts': PLAYWRIGHT_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    await createPool('cri-only', { minIdle: 1, maxIdle: 1, preload: ['chrome-remote-interface'], launch: { viewport: { width: 1111, height: 777 } } });
    const [member] = await readyMembers('cri-only', 1);
    const res = await svc.request('POST', `/v1/functions/${build.builtFunctions![0].id}/invoke`, { sessionCreateParams: { browserSettings: { viewport: { width: 1111, height: 777 } } } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const done = await waitInvocation(svc, res.body.id as string);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
    assert.equal(done.results, 1111);
    assert.equal(await podOf(res.body.id as string), member, 'it ran on the member');
    await waitFor('the default pool preloading both Functions\' packages', async () =>
      JSON.stringify((await pools().get('default', 'default'))?.spec.preload) === JSON.stringify(['chrome-remote-interface', 'playwright-core']) ? true : undefined,
    );
    await pools().delete('default', 'cri-only');
  });

  it('tries Playwright and Puppeteer out in a member, and hands the handler a page no client has met, recorded alone', async () => {
    const build = await publish(svc, writeProject({ 'index.ts': DRIVERS_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const launch = { viewport: { width: 1222, height: 777 } };
    await createPool('drivers', { minIdle: 1, maxIdle: 1, preload: ['playwright-core', 'puppeteer-core'], launch });
    const [member] = await readyMembers('drivers', 1);
    const warmedUp = podLogRecords(svc, member).find((record) => record.msg === 'function process warmed up its clients');
    assert.deepEqual(warmedUp?.warmedUp, ['playwright-core', 'puppeteer-core'], 'both were tried before the member was ready');
    const res = await svc.request('POST', `/v1/functions/${build.builtFunctions![0].id}/invoke`, { sessionCreateParams: { browserSettings: launch } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const done = await waitInvocation(svc, res.body.id as string);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
    assert.equal(await podOf(res.body.id as string), member, 'it ran on the member');
    const seen = done.results as { contexts: number; pages: number; history: number; worlds: string[]; pageId: string };
    assert.equal(seen.contexts, 1, 'no context of the warm-up is left');
    assert.equal(seen.pages, 1, JSON.stringify(seen));
    assert.equal(seen.history, 1);
    assert.equal(seen.worlds.filter((name) => name.startsWith('__playwright_utility_world')).length, 1, `only the handler's own Playwright world: ${JSON.stringify(seen.worlds)}`);
    const { body: sessionLogs } = await svc.request('GET', `/v1/sessions/${done.sessionId}/logs`);
    const loggedPages = new Set((sessionLogs as { pageId?: string }[]).map((entry) => entry.pageId).filter((id) => id !== undefined));
    assert.deepEqual([...loggedPages], [seen.pageId], 'the session logged the handler\'s page alone');
    const { body: replays } = await svc.request('GET', `/v1/sessions/${done.sessionId}/replays`);
    assert.deepEqual((replays as { pages: { pageId: string }[] }).pages.map((page) => page.pageId), [seen.pageId], 'the session recorded the handler\'s page alone');
    const { body: events } = await svc.request('GET', `/v1/sessions/${done.sessionId}/recording`);
    assert.ok(events.length > 0);
    assert.deepEqual([...new Set((events as { pageId?: string }[]).map((event) => event.pageId))], [seen.pageId], 'its rrweb events are of that page alone');
    await pools().delete('default', 'drivers');
  });

  it('fails an invocation on a member whose code failed to load ahead as a cold pod fails it, and that member waited for it', async () => {
    const launch = { viewport: { width: 999, height: 555 } };
    const build = await publishWithPool(FAILS_TO_LOAD_FN, 'fails', launch);
    const [member] = await readyMembers('fails', 1);
    const invokeWith = async (viewport: { width: number; height: number }) => {
      const res = await svc.request('POST', `/v1/functions/${build.builtFunctions![0].id}/invoke`, { sessionCreateParams: { browserSettings: { viewport } } });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      return { done: await waitInvocation(svc, res.body.id as string), pod: await podOf(res.body.id as string) };
    };
    const warm = await invokeWith(launch.viewport);
    assert.equal(warm.pod, member, 'it ran on the member made first: the member did not end of its code');
    assert.equal(warm.done.status, 'FAILED');
    assert.equal(warm.done.cause?.code, 'WORKLOAD_ERROR', JSON.stringify(warm.done));
    assert.match(warm.done.cause?.message ?? '', /this code fails once it runs in a pod/);
    assert.ok(Date.parse(warm.done.startedAt ?? '') >= Date.parse(warm.done.createdAt), `started ${warm.done.startedAt}, not before it was created (${warm.done.createdAt})`);
    const cold = await invokeWith({ width: 998, height: 555 });
    assert.match(cold.pod, /-a1$/, 'a pod made for the invocation');
    assert.deepEqual(warm.done.cause, cold.done.cause, 'the same failure as in a cold pod');
    await pools().delete('default', 'fails');
  });

  it('stops the code of a member whose code never finishes loading ahead, and fails the invocation that claims it', async () => {
    const launch = { viewport: { width: 997, height: 555 } };
    const build = await publishWithPool(NEVER_LOADS_FN, 'never', launch);
    const member = await waitFor('a member of pool never started', async () => {
      const [pod] = await membersOf('never');
      return pod && podLogRecords(svc, pod.metadata.name).some((record) => Array.isArray(record.pids)) ? pod.metadata.name : undefined;
    }, 120_000);
    const codeLoaders = () => podProcessTree(svc, member).filter((p) => p.cmdline.includes('code-loader'));
    await waitFor('its code loader running', async () => (codeLoaders().length > 0 ? true : undefined), 60_000);
    // The load limit (60 s) passes: the member kills its code's process and stays, to fail whoever claims it.
    await waitFor('its code loader gone', async () => (codeLoaders().length === 0 ? true : undefined), 120_000, 500);
    assert.deepEqual((await membersOf('never')).map((pod) => pod.metadata.name), [member], 'the member waits to be claimed');
    const res = await svc.request('POST', `/v1/functions/${build.builtFunctions![0].id}/invoke`, { sessionCreateParams: { browserSettings: { viewport: launch.viewport } } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const done = await waitInvocation(svc, res.body.id as string);
    assert.equal(await podOf(res.body.id as string), member);
    assert.equal(done.status, 'FAILED');
    assert.equal(done.cause?.code, 'WORKLOAD_ERROR');
    assert.match(done.cause?.message ?? '', /did not ask for its invocation within 60 s/);
    await pools().delete('default', 'never');
  });
});

/** A pod's output lines as the node agent logged them (captureLog). */
function podLogRecords(svc: TestService, pod: string): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  for (const line of svc.logLines) {
    let outer: { pod?: string; output?: string; pids?: number[] };
    try {
      outer = JSON.parse(line) as typeof outer;
    } catch {
      continue;
    }
    if (outer.pod !== `default/${pod}`) continue;
    if (outer.pids) records.push({ pids: outer.pids });
    for (const inner of (outer.output ?? '').split('\n')) {
      try {
        records.push(JSON.parse(inner) as Record<string, unknown>);
      } catch {
        // plain text
      }
    }
  }
  return records;
}

function processState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

/** The pod's processes: under the process the node agent started for the pod (its sandbox). */
function podProcessTree(svc: TestService, pod: string): FoundProcess[] {
  const started = podLogRecords(svc, pod).find((record) => Array.isArray(record.pids));
  assert.ok(started, `the node agent logged no start of pod ${pod}`);
  return processTreeOf(new Set([(started.pids as number[])[0]]));
}

/** The pod's processes but its browser's (by their executable: the code loader's arguments may name chrome-remote-interface). */
function podProcessesBesidesChromium(svc: TestService, pod: string): number[] {
  const processes = podProcessTree(svc, pod).filter((p) => !/chrom/.test(basename(p.cmdline.split(' ')[0] ?? '')));
  assert.ok(processes.some((p) => p.cmdline.includes('pod-agent')), `no pod agent process under pod ${pod}'s sandbox`);
  return processes.map((p) => p.pid);
}

/** The Chromium browser process of a pod: the process listening on the CDP port its agent logged. */
function chromiumOfPod(svc: TestService, pod: string): number {
  const ready = podLogRecords(svc, pod).find((record) => record.msg === 'browser ready');
  assert.ok(ready, `pod ${pod} logged no browser`);
  const port = Number(new URL(String(ready.wsEndpoint)).port);
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = row.trim().split(/\s+/);
      if (fields.length > 9 && fields[3] === '0A' && parseInt(fields[1].split(':')[1], 16) === port) inodes.add(fields[9]);
    }
  }
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (inodes.has(target.replace(/^socket:\[(\d+)\]$/, '$1'))) return Number(pid);
      }
    } catch {
      // gone, or not ours to read
    }
  }
  throw new Error(`no process listens on port ${port} (pod ${pod})`);
}
