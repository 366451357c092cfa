// Each pod's memory bounded (docs/pod-memory.md), with the real `serve` stack: a browser pod runs in a
// memory cgroup of its own at BROWSERFN_POD_MEMORY_MB holding Chromium, the pod agent and the user
// process; a handler (or its page) that allocates past it fails naming the limit, its pod ends
// OOMKilled, and no process or cgroup is left; a handler within it completes.
import assert from 'node:assert/strict';
import { createLogger } from '../../src/config/logger.js';
import { Kinds } from '../../src/cluster/objects.js';
import { Informer } from '../../src/controller/runtime/informer.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish, waitInvocation } from '../support/publish.js';
import { processesUnder } from '../support/processes.js';
import { startHoldServer, type HoldServer } from '../support/hold-server.js';
import { commandsIn, memoryCgroupsHere, memoryLimitOf, podCgroups, type MemoryCgroupsHere } from '../support/memory-cgroups.js';

const LIMIT_MIB = 256;

/**
 * 'hog' touches every page it allocates, 16 MiB at a time, until the pod's limit stops it;
 * 'page-hog' has its page do the same in the browser; 'held' waits for the hold server.
 */
async function publishFunctions(svc: TestService, holdUrl: string, headers: Record<string, string> = {}): Promise<Map<string, string>> {
  const build = await publish(
    svc,
    writeProject({
      'index.ts': [
        "import { defineFn } from 'browserfn';",
        "import { chromium } from 'playwright-core';",
        "defineFn('hog', async () => { const kept: Buffer[] = []; for (;;) { kept.push(Buffer.alloc(16 << 20, 1)); await new Promise((r) => setImmediate(r)); } });",
        "defineFn('page-hog', async (ctx) => { const browser = await chromium.connectOverCDP(ctx.session.connectUrl); const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage()); await page.evaluate(async () => { const kept: Uint8Array[] = []; for (;;) { kept.push(new Uint8Array(16 << 20).fill(1)); await new Promise((r) => setTimeout(r, 0)); } }); });",
        `defineFn('held', async () => { const answer = await fetch(${JSON.stringify(holdUrl)}); return { answer: await answer.text() }; });`,
      ].join('\n'),
    }),
    'index.ts',
    headers,
  );
  assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
  return new Map(build.builtFunctions!.map((fn) => [fn.name, fn.id]));
}

const assertOutOfMemoryCause = (cause: { code: string; message?: string } | undefined) => {
  assert.equal(cause?.code, 'WORKLOAD_ERROR', JSON.stringify(cause));
  assert.match(cause?.message ?? '', new RegExp(`exceeded its memory limit of ${LIMIT_MIB} MiB.*OOMKilled`));
};

describe('pod memory: a memory cgroup per pod (embedded serve)', function () {
  this.timeout(600_000);
  let here: MemoryCgroupsHere;
  let svc: TestService;
  let hold: HoldServer;
  let pods: Informer<PodObject>;
  const podStatuses = new Map<string, PodObject['status']>();
  const functions = new Map<string, string>();

  before(async function () {
    const found = memoryCgroupsHere();
    if ('reason' in found) {
      console.warn(`    SKIPPED pod memory tests: this machine gives no memory cgroup to pods (${found.reason})`);
      this.skip();
    }
    here = found as MemoryCgroupsHere;
    hold = await startHoldServer();
    svc = await startTestService({ BROWSERFN_POD_MEMORY_MB: String(LIMIT_MIB), BROWSERFN_POD_SHM_MB: '64' });
    pods = new Informer<PodObject>(svc.service.cluster, Kinds.Pod, createLogger('silent'));
    const keep = (pod: PodObject) => pod.status?.phase && podStatuses.set(pod.metadata.name, pod.status);
    pods.addHandlers({ onAdd: keep, onUpdate: (_old, pod) => keep(pod) });
    pods.start();
    await pods.waitForSync();
    for (const [name, id] of await publishFunctions(svc, hold.url)) functions.set(name, id);
  });
  after(async () => {
    await pods?.stop();
    await svc?.stop();
    await hold?.close();
  });

  const noneLeft = async () => {
    await waitFor('every pod cgroup to be removed', async () => (podCgroups(here).length === 0 ? true : undefined), 30_000);
    await waitFor('every pod process to be gone', async () => (processesUnder(`${svc.dataDir}/pods`).length === 0 ? true : undefined), 30_000);
  };

  it('runs Chromium, the pod agent and the user process of a pod in its own cgroup at the limit, and completes within it', async () => {
    const created = await svc.request('POST', `/v1/functions/${functions.get('held')}/invoke`, {});
    assert.equal(created.status, 202, JSON.stringify(created.body));
    await hold.arrived(1);
    const [cgroup, ...others] = podCgroups(here);
    assert.ok(cgroup, 'the running pod has a memory cgroup');
    assert.deepEqual(others, [], 'only the running pod has one');
    assert.equal(memoryLimitOf(here, cgroup), LIMIT_MIB * 1024 * 1024);
    const commands = commandsIn(cgroup);
    for (const part of ['chromium', 'pod-agent', 'code-loader']) assert.ok(commands.some((c) => c.includes(part)), `${part} runs in the pod's cgroup: ${commands.join('\n')}`);
    hold.release();
    const done = await waitInvocation(svc, created.body.id, 120_000);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    assert.deepEqual(done.results, { answer: 'released' });
    await noneLeft();
  });

  it('fails a handler that allocates past the limit, saying the memory limit was exceeded and what it was; the pod ends OOMKilled', async () => {
    const done = await invokeAndWait(svc, functions.get('hog')!, {}, 300_000);
    assert.equal(done.status, 'FAILED');
    assertOutOfMemoryCause(done.cause);
    const podStatus = [...podStatuses.entries()].find(([name]) => name.startsWith(done.id))?.[1];
    assert.equal(podStatus?.reason, 'OOMKilled', JSON.stringify(podStatus));
    assert.ok(podStatus?.containerStatuses?.every((c) => c.state?.terminated?.reason === 'OOMKilled'), JSON.stringify(podStatus));
    await noneLeft();
  });

  it('fails a handler whose page allocates past the limit with the same cause, not as a crash of the browser', async () => {
    const done = await invokeAndWait(svc, functions.get('page-hog')!, {}, 300_000);
    assert.equal(done.status, 'FAILED');
    assertOutOfMemoryCause(done.cause);
    await noneLeft();
  });
});

describe('pod memory: unsandboxed pods (process groups) are bounded too', function () {
  this.timeout(600_000);
  let here: MemoryCgroupsHere;
  let svc: TestService;

  before(async function () {
    const found = memoryCgroupsHere();
    if ('reason' in found) {
      console.warn(`    SKIPPED pod memory tests: this machine gives no memory cgroup to pods (${found.reason})`);
      this.skip();
    }
    here = found as MemoryCgroupsHere;
    svc = await startTestService({ BROWSERFN_SANDBOX: 'off', BROWSERFN_API_KEYS: 'only-key:default', BROWSERFN_POD_MEMORY_MB: String(LIMIT_MIB) });
  });
  after(async () => svc?.stop());

  it('fails a handler that allocates past the limit with the same cause, leaving no process or cgroup', async () => {
    const key = { 'x-svc-api-key': 'only-key' };
    const functions = await publishFunctions(svc, 'http://127.0.0.1:9', key);
    const created = await svc.request('POST', `/v1/functions/${functions.get('hog')}/invoke`, {}, key);
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const done = await waitInvocation(svc, created.body.id, 300_000, key);
    assert.equal(done.status, 'FAILED');
    assertOutOfMemoryCause(done.cause);
    await waitFor('every pod cgroup to be removed', async () => (podCgroups(here).length === 0 ? true : undefined), 30_000);
    await waitFor('every pod process to be gone', async () => (processesUnder(`${svc.dataDir}/pods`).length === 0 ? true : undefined), 30_000);
  });
});
