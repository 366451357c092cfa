// Each pod's folders on disk bounded (docs/pod-memory.md), with the real `serve` stack: a handler
// that writes past BROWSERFN_POD_DISK_MB into its temporary folder (TMPDIR, in the pod's /work), or
// floods it with empty files, or writes into a file it deleted and keeps open, has its pod
// evicted as the kubelet would and its invocation fails naming the folder and the limit, with no
// process or file of the pod left; a handler within the limit completes, Chromium's profile and all.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { createLogger } from '../../src/config/logger.js';
import { Kinds } from '../../src/cluster/objects.js';
import { Informer } from '../../src/controller/runtime/informer.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';
import { processesUnder } from '../support/processes.js';

const LIMIT_MIB = 64;

/**
 * 'fill' writes 256 MiB into its TMPDIR, 'held' as much into a file it deleted and keeps open
 * (no folder lists it), 'files' makes 40 000 empty files there (each counts a block of
 * 4 KiB), both then wait; 'within' visits a page and writes 1 MiB.
 */
const FUNCTIONS = [
  "import { defineFn } from 'browserfn';",
  "import { chromium } from 'playwright-core';",
  "import { closeSync, mkdirSync, openSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';",
  "import { tmpdir } from 'node:os';",
  "import { join } from 'node:path';",
  'const wait = () => new Promise((resolve) => setTimeout(resolve, 600_000));',
  "defineFn('fill', async () => { for (let i = 0; i < 16; i++) writeFileSync(join(tmpdir(), `part-${i}`), Buffer.alloc(16 << 20, 1)); await wait(); });",
  "defineFn('held', async () => { const file = join(tmpdir(), 'hidden'); const fd = openSync(file, 'w'); unlinkSync(file); for (let i = 0; i < 16; i++) writeSync(fd, Buffer.alloc(16 << 20, 1)); await wait(); closeSync(fd); });",
  "defineFn('files', async () => { for (let d = 0; d < 40; d++) { const dir = join(tmpdir(), `d${d}`); mkdirSync(dir); for (let f = 0; f < 1000; f++) writeFileSync(join(dir, `f${f}`), ''); } await wait(); });",
  "defineFn('within', async (ctx) => { const browser = await chromium.connectOverCDP(ctx.session.connectUrl); const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage()); await page.setContent('<h1>small</h1>'); writeFileSync(join(tmpdir(), 'one'), Buffer.alloc(1 << 20, 1)); return { title: await page.textContent('h1') }; });",
].join('\n');

describe('pod disk: each folder of a pod bounded by its sizeLimit (embedded serve)', function () {
  this.timeout(600_000);
  let svc: TestService;
  let pods: Informer<PodObject>;
  const podStatuses = new Map<string, PodObject['status']>();
  const functions = new Map<string, string>();

  before(async () => {
    svc = await startTestService({ BROWSERFN_POD_DISK_MB: String(LIMIT_MIB) });
    pods = new Informer<PodObject>(svc.service.cluster, Kinds.Pod, createLogger('silent'));
    const keep = (pod: PodObject) => pod.status?.phase && podStatuses.set(pod.metadata.name, pod.status);
    pods.addHandlers({ onAdd: keep, onUpdate: (_old, pod) => keep(pod) });
    pods.start();
    await pods.waitForSync();
    const build = await publish(svc, writeProject({ 'index.ts': FUNCTIONS }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    for (const fn of build.builtFunctions!) functions.set(fn.name, fn.id);
  });
  after(async () => {
    await pods?.stop();
    await svc?.stop();
  });

  /** Nothing of the invocation's pod runs, and its folder is gone. */
  const nothingLeftOf = async (invocationId: string) => {
    const podsDir = `${svc.dataDir}/pods`;
    const folders = () => (existsSync(podsDir) ? readdirSync(podsDir).filter((name) => name.includes(invocationId)) : []);
    await waitFor("the pod's folder to be removed", async () => (folders().length === 0 ? true : undefined), 30_000);
    assert.deepEqual(processesUnder(podsDir).filter((p) => p.cwd.includes(invocationId) || p.cmdline.includes(invocationId)), []);
  };

  for (const [name, what] of [
    ['fill', 'writes past the limit'],
    ['held', 'writes past the limit into a file it deleted and keeps open'],
    ['files', 'floods its folder with empty files'],
  ] as const) {
    it(`fails a handler that ${what}: the pod is evicted, the cause names the folder and the limit`, async () => {
      const done = await invokeAndWait(svc, functions.get(name)!, {}, 300_000);
      assert.equal(done.status, 'FAILED', JSON.stringify(done));
      assert.equal(done.cause?.code, 'WORKLOAD_ERROR', JSON.stringify(done.cause));
      assert.match(done.cause?.message ?? '', new RegExp(`evicted \\(Usage of EmptyDir volume "work" exceeds the limit "${LIMIT_MIB}Mi"\\.\\).*BROWSERFN_POD_DISK_MB`));
      const podStatus = [...podStatuses.entries()].find(([pod]) => pod.startsWith(done.id))?.[1];
      assert.equal(podStatus?.reason, 'Evicted', JSON.stringify(podStatus));
      await nothingLeftOf(done.id);
    });
  }

  it('completes a handler that drives the browser and writes within the limit', async () => {
    const done = await invokeAndWait(svc, functions.get('within')!, {}, 300_000);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    assert.deepEqual(done.results, { title: 'small' });
  });
});
