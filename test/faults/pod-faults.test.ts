// Faults inside a running browser pod (embedded): Chromium killed mid-handler, the pod agent
// killed mid-handler. Every invocation ends with a cause, none runs its handler to completion
// twice, and nothing of the pod is left running.
import assert from 'node:assert/strict';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { startHoldServer, type HoldServer } from '../support/hold-server.js';
import { publish, waitInvocation } from '../support/publish.js';
import { processTreeUnder } from '../support/processes.js';

// Waits at the hold server, then drives the browser: a browser killed meanwhile is noticed here.
const FN = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';
defineFn('hold-then-browse', async (ctx, params: { url: string; tag: string }) => {
  const held = await fetch(params.url + '/' + params.tag);
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
  const title = await page.evaluate(() => 'browsed');
  await browser.close();
  return { tag: params.tag, held: await held.text(), title };
});
// Dies instead of failing: its process exits as soon as the browser cannot be reached.
defineFn('hold-then-exit', async (ctx, params: { url: string; tag: string }) => {
  await fetch(params.url + '/' + params.tag);
  await chromium.connectOverCDP(ctx.session.connectUrl).catch(() => process.exit(7));
  return { tag: params.tag };
});
`;

describe('faults in a browser pod (embedded)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let hold: HoldServer;
  let fnId: string;
  let exitingFnId: string;

  before(async () => {
    svc = await startTestService({ BROWSERFN_MAX_CONCURRENT_INVOCATIONS: '1' });
    const build = await publish(svc, writeProject({ 'index.ts': FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    fnId = build.builtFunctions!.find((fn) => fn.name === 'hold-then-browse')!.id;
    exitingFnId = build.builtFunctions!.find((fn) => fn.name === 'hold-then-exit')!.id;
  });
  beforeEach(async () => {
    hold = await startHoldServer();
  });
  afterEach(async () => {
    hold?.release();
    await hold?.close();
  });
  after(async () => {
    await svc?.stop();
  });

  /** Starts an invocation and waits until its handler is held at the hold server. */
  async function invokeAndHold(tag: string, functionId: string): Promise<string> {
    const res = await svc.request('POST', `/v1/functions/${functionId}/invoke`, { params: { url: hold.url, tag } });
    assert.equal(res.status, 202);
    await hold.arrived(1);
    return res.body.id as string;
  }

  function kill(what: RegExp): number[] {
    const victims = processTreeUnder(svc.dataDir).filter((p) => what.test(p.cmdline));
    assert.ok(victims.length > 0, `no process matches ${what}: ${processTreeUnder(svc.dataDir).map((p) => p.cmdline.slice(0, 120)).join('\n')}`);
    for (const { pid } of victims) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch (error) {
        // Gone since it was listed (a browser's helper dies with the browser killed before it): as wanted.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
    return victims.map((v) => v.pid);
  }

  /** Kills the browser while the handler is held, then releases it: the invocation must fail, naming the browser. */
  async function killBrowserMidHandler(tag: string, functionId: string): Promise<void> {
    const id = await invokeAndHold(tag, functionId);
    kill(/chromium.*--remote-debugging/);
    hold.release();
    const result = await waitInvocation(svc, id);
    assert.equal(result.status, 'FAILED', JSON.stringify(result));
    // Whichever is noticed first, the browser's exit or the handler's failure to reach it, the cause is the browser.
    assert.equal(result.cause?.code, 'INTERNAL_ERROR', JSON.stringify(result.cause));
    assert.match(result.cause?.message ?? '', /^The browser (was killed by SIGKILL|was killed or crashed) during the invocation$/);
    // The browser is gone before the report; the pod's sandbox (bwrap and its launcher) ends with the pod, right after.
    await waitFor('nothing of the pod left running', async () => (processTreeUnder(svc.dataDir).length === 0 ? true : undefined), 30_000, 100);
  }

  it('Chromium killed mid-handler: the invocation fails with a cause naming the browser, and the pod is gone', () => killBrowserMidHandler('chromium', fnId));

  it('Chromium killed mid-handler, whose process then exits: the cause is still the browser', () => killBrowserMidHandler('chromium-exit', exitingFnId));

  // The agent died before it could report, so the attempt left no outcome: the controller starts
  // the invocation once more (at least once, as for any pod lost before it reported).
  it('the pod agent killed mid-handler: the invocation runs once more in a new pod and completes', async () => {
    const id = await invokeAndHold('agent', fnId);
    const [agent] = kill(/pod-agent/);
    await hold.arrived(2);
    hold.release();
    const result = await waitInvocation(svc, id);
    assert.equal(result.status, 'COMPLETED', JSON.stringify(result));
    assert.deepEqual(result.results, { tag: 'agent', held: 'released', title: 'browsed' });
    assert.ok(!processTreeUnder(svc.dataDir).some((p) => p.pid === agent));
  });
});
