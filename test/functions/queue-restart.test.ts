// Bounded concurrency (waiting invocations stay PENDING, none is dropped) and a restart of
// `serve` with an invocation queued: it still completes afterwards, and nothing is left running.
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { startHoldServer, type HoldServer } from '../support/hold-server.js';
import { publish, waitInvocation } from '../support/publish.js';
import { processesUnder } from '../support/processes.js';

const HOLD_FN = `
import { defineFn } from 'browserfn';
defineFn('wait-for-release', async (ctx, params: { url: string; tag: string }) => {
  const res = await fetch(params.url + '/' + params.tag);
  return { tag: params.tag, answer: await res.text() };
});
`;

describe('invocation queue and restarts (embedded)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let hold: HoldServer;
  let fnId: string;

  beforeEach(async () => {
    svc = await startTestService({ BROWSERFN_MAX_CONCURRENT_INVOCATIONS: '1' });
    hold = await startHoldServer();
    const build = await publish(svc, writeProject({ 'index.ts': HOLD_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    fnId = build.builtFunctions![0].id;
  });
  afterEach(async () => {
    hold?.release();
    await hold?.close();
    await svc?.stop();
  });

  const invoke = async (tag: string) => {
    const res = await svc.request('POST', `/v1/functions/${fnId}/invoke`, { params: { url: hold.url, tag } });
    assert.equal(res.status, 202);
    return res.body.id as string;
  };

  it('runs at most the configured number at once; the rest wait as PENDING and all complete', async () => {
    const first = await invoke('first');
    const second = await invoke('second');
    await hold.arrived(1);
    const running = await svc.request('GET', `/v1/functions/invocations/${first}`);
    const waiting = await svc.request('GET', `/v1/functions/invocations/${second}`);
    assert.equal(running.body.status, 'RUNNING');
    assert.equal(waiting.body.status, 'PENDING');
    hold.release();
    const [a, b] = await Promise.all([waitInvocation(svc, first), waitInvocation(svc, second)]);
    assert.deepEqual([a.status, b.status], ['COMPLETED', 'COMPLETED']);
    assert.deepEqual(a.results, { tag: 'first', answer: 'released' });
    assert.deepEqual(b.results, { tag: 'second', answer: 'released' });
  });

  it('completes a queued invocation after serve restarts, and leaves no process behind on shutdown', async () => {
    const first = await invoke('first');
    const queued = await invoke('queued');
    await hold.arrived(1);
    await svc.restart();
    assert.deepEqual(processesUnder(svc.dataDir), [], 'no Chromium or user process outlives the stop');
    hold.release();
    const [a, b] = await Promise.all([waitInvocation(svc, first), waitInvocation(svc, queued)]);
    assert.equal(b.status, 'COMPLETED', JSON.stringify(b.cause));
    assert.deepEqual(b.results, { tag: 'queued', answer: 'released' });
    assert.equal(a.status, 'COMPLETED', 'the interrupted invocation is started again once');
  });
});
