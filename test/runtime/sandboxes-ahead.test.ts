// Sandboxes made ahead (src/runtime/node-agent/spare-sandboxes.ts), through a real service whose pods
// have their own network (bubblewrap + pasta, as `serve` runs by default): cold invocations take
// the one made ahead for their shape, each serves one pod, nothing of a pod is in one before it is
// taken, one killed while it waits is replaced, and none outlives the service.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PodEnv } from '../../src/schemas/pod-env.js';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';
import { processTreeOf } from '../support/processes.js';
import { launcherWaitingBelow, sandboxesMadeAhead, sandboxReadyAhead } from '../support/sandboxes-ahead.js';

const FUNCTIONS = `
import { defineFn } from 'browserfn';
import CDP from 'chrome-remote-interface';
defineFn('evaluate', async (ctx) => {
  const client = await CDP({ target: ctx.session.connectUrl });
  try {
    const { targetInfos } = await client.Target.getTargets();
    const page = targetInfos.find((t) => t.type === 'page');
    const { sessionId } = await client.Target.attachToTarget({ targetId: page.targetId, flatten: true });
    const { result } = await client.send('Runtime.evaluate', { expression: '1+1', returnByValue: true }, sessionId);
    return { value: result.value };
  } finally {
    await client.close();
  }
});
`;

const aheadFolders = (svc: TestService): string[] => readdirSync(join(svc.dataDir, 'pods')).filter((name) => name.startsWith('.ahead-'));
/** What the node agent logged of each pod it started: what it took of what was made ahead. */
const podStarts = (svc: TestService): { pod: string; madeAhead?: string }[] =>
  svc.logLines.map((line) => JSON.parse(line) as { msg?: string; pod: string; madeAhead?: string }).filter((entry) => entry.msg === 'pod started' && !entry.pod.endsWith('-build'));

describe('sandboxes made ahead for cold browser pods', function () {
  this.timeout(300_000);
  let svc: TestService;
  let functionId: string;
  let serviceStopped = false;

  before(async () => {
    svc = await startTestService({ BROWSERFN_SANDBOX: 'bwrap', BROWSERFN_SANDBOX_NETWORK: 'pasta', BROWSERFN_API_RATE_PER_PROJECT: '0' }, { captureLog: true });
    const build = await publish(svc, writeProject({ 'index.ts': FUNCTIONS }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    functionId = build.builtFunctions![0].id;
  });
  after(async () => {
    if (serviceStopped) rmSync(svc.dataDir, { recursive: true, force: true });
    else await svc?.stop();
  });

  it('the first cold pod names the shape; the next takes the sandbox made for it, which serves that pod alone, and another is made', async () => {
    const first = await invokeAndWait(svc, functionId, {});
    assert.equal(first.status, 'COMPLETED', JSON.stringify(first.cause));
    assert.notEqual(podStarts(svc).at(-1)?.madeAhead, 'sandbox', 'none is made before a cold pod has shown its shape');
    const { launcher: waiting } = await sandboxReadyAhead(svc);
    const second = await invokeAndWait(svc, functionId, {});
    assert.equal(second.status, 'COMPLETED', JSON.stringify(second.cause));
    assert.deepEqual((second.results as { value: number }).value, 2);
    assert.equal(podStarts(svc).at(-1)?.madeAhead, 'sandbox', JSON.stringify(podStarts(svc)));
    // It ended with its pod, and a new one (another process) waits for the next.
    await waitFor('the sandbox that served to end', async () => (existsSync(`/proc/${waiting.pid}`) ? undefined : true), 30_000);
    const { launcher: next } = await sandboxReadyAhead(svc, waiting.pid);
    assert.notEqual(next.pid, waiting.pid);
    const third = await invokeAndWait(svc, functionId, {});
    assert.equal(third.status, 'COMPLETED', JSON.stringify(third.cause));
    assert.equal(podStarts(svc).at(-1)?.madeAhead, 'sandbox');
    // The pods had the cached artifact as a link into their folder: it is still the server's, and unchanged in mode.
    const cache = join(svc.dataDir, 'artifact-cache');
    const cached = readdirSync(cache, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    assert.ok(cached.length > 0, 'the artifact is cached');
    for (const entry of cached) {
      const { uid, mode } = statSync(join(entry.parentPath ?? entry.path, entry.name));
      assert.equal(uid, process.getuid!(), `${entry.name} is owned by the server`);
      assert.equal(mode & 0o022, 0, `${entry.name} is writable by others`);
    }
  });

  it('holds nothing of a pod before it is taken: no token or setting of a pod in its processes, no code in its folder', async () => {
    const { launcher, dir } = await sandboxReadyAhead(svc);
    const processes = processTreeOf(new Set([launcher.pid]));
    assert.ok(processes.some((p) => p.cmdline.includes('code-loader')), 'its code loader runs');
    for (const { pid, cmdline } of processes) {
      let environ: string;
      try {
        environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      } catch {
        continue;
      }
      for (const name of [PodEnv.podToken, PodEnv.podName, PodEnv.controlUrl, PodEnv.artifactSha256]) assert.ok(!environ.includes(`${name}=`), `${name} in the environment of ${cmdline.slice(0, 200)}`);
      assert.ok(!environ.includes(svc.apiKey) && !cmdline.includes(svc.apiKey), cmdline.slice(0, 200));
    }
    assert.ok(aheadFolders(svc).includes(basename(dir)), 'its folder is in the pods\' folder');
    assert.deepEqual(readdirSync(join(dir, 'artifact')), [], 'no artifact before it is taken');
    assert.deepEqual(readdirSync(join(dir, 'work', 'code')), [], 'no code before it is taken');
  });

  it('one killed while it waits is replaced, and the next cold invocation completes', async () => {
    const { launcher } = await sandboxReadyAhead(svc);
    process.kill(launcher.pid, 'SIGKILL');
    const { launcher: replacement } = await sandboxReadyAhead(svc, launcher.pid);
    assert.notEqual(replacement.pid, launcher.pid);
    const done = await invokeAndWait(svc, functionId, {});
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    assert.equal(podStarts(svc).at(-1)?.madeAhead, 'sandbox');
  });

  it('none outlives the service: its processes and folder are gone once the service has stopped', async () => {
    const { launcher } = await sandboxReadyAhead(svc);
    const processes = processTreeOf(new Set([launcher.pid]));
    serviceStopped = true;
    await svc.service.stop();
    const living = processes.filter((p) => existsSync(`/proc/${p.pid}`) && !readFileSync(`/proc/${p.pid}/stat`, 'utf8').includes(') Z '));
    assert.deepEqual(living.map((p) => p.cmdline.slice(0, 200)), [], 'processes of the sandbox made ahead outlived the stop');
    assert.deepEqual(aheadFolders(svc), []);
  });
});

describe('sandboxes made ahead, turned off (BROWSERFN_SANDBOX_AHEAD=0)', function () {
  this.timeout(300_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService({ BROWSERFN_SANDBOX: 'bwrap', BROWSERFN_SANDBOX_NETWORK: 'pasta', BROWSERFN_SANDBOX_AHEAD: '0' }, { captureLog: true });
  });
  after(async () => {
    await svc?.stop();
  });

  it('cold pods start sandboxes of their own, in networks made ahead', async () => {
    const build = await publish(svc, writeProject({ 'index.ts': FUNCTIONS }));
    const functionId = build.builtFunctions![0].id;
    for (let i = 0; i < 2; i++) {
      const done = await invokeAndWait(svc, functionId, {});
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    }
    assert.ok(podStarts(svc).every((start) => start.madeAhead !== 'sandbox'), JSON.stringify(podStarts(svc)));
    assert.deepEqual(sandboxesMadeAhead(svc), []);
    assert.equal(launcherWaitingBelow(new Set([process.pid])), undefined);
    assert.deepEqual(aheadFolders(svc), []);
  });

  it('removes the folders of sandboxes a crashed server made ahead when it starts again', async () => {
    const left = join(svc.dataDir, 'pods', '.ahead-12345-1');
    mkdirSync(join(left, 'work'), { recursive: true });
    await svc.restart();
    assert.deepEqual(aheadFolders(svc), []);
  });
});
