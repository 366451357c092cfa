// Cancelling invocations (ours): a running one ends FAILED with cause CANCELLED and its browser and
// processes are gone; a queued one ends without its handler ever running; an ended one is a 409;
// `browserfn invoke --cancel-on-interrupt` cancels on Ctrl-C.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { startHoldServer, type HoldServer } from '../support/hold-server.js';
import { publish, waitInvocation } from '../support/publish.js';
import { processTreeUnder } from '../support/processes.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

const HOLD_FN = `
import { defineFn } from 'browserfn';
defineFn('hold', async (_ctx, params: { url: string; tag: string }) => (await fetch(params.url + '/' + params.tag)).text());
`;

describe('cancelling invocations (embedded)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let hold: HoldServer;
  let fnId: string;

  before(async () => {
    svc = await startTestService({ BROWSERFN_MAX_CONCURRENT_INVOCATIONS: '1' });
    const build = await publish(svc, writeProject({ 'index.ts': HOLD_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    fnId = build.builtFunctions![0].id;
  });
  beforeEach(async () => (hold = await startHoldServer()));
  afterEach(async () => {
    hold.release();
    await hold.close();
  });
  after(async () => svc?.stop());

  const invoke = async (tag: string) => {
    const res = await svc.request('POST', `/v1/functions/${fnId}/invoke`, { params: { url: hold.url, tag } });
    assert.equal(res.status, 202);
    return res.body.id as string;
  };
  const cancel = (id: string, request = svc.request.bind(svc)) => request('POST', `/v1/functions/invocations/${id}/cancel`);

  it('a running invocation ends FAILED with CANCELLED, its browser and processes gone; a second cancel is a 409', async () => {
    const id = await invoke('running');
    await hold.arrived(1);
    assert.ok(processTreeUnder(svc.dataDir).some((p) => /chromium/.test(p.cmdline)), 'the browser runs while the handler waits');
    const cancelled = await cancel(id);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, 'FAILED');
    assert.equal(cancelled.body.cause.code, 'CANCELLED');
    assert.match(cancelled.body.cause.message, /^Cancelled on request at \d{4}-/);
    await waitFor('the pod\'s processes to be gone', async () => (processTreeUnder(svc.dataDir).length === 0 ? true : undefined), 30_000, 100);

    const again = await cancel(id);
    assert.equal(again.status, 409);
    assert.match(again.body.message, /already ended \(FAILED\); only a PENDING or RUNNING invocation can be cancelled/);
    const session = await svc.request('GET', `/v1/sessions/${cancelled.body.sessionId}`);
    assert.notEqual(session.body.status, 'RUNNING', 'its session is over');
  });

  it('a queued invocation ends CANCELLED without its handler ever running, and the queue moves on', async () => {
    const first = await invoke('first');
    await hold.arrived(1);
    const queued = await invoke('queued');
    assert.equal((await svc.request('GET', `/v1/functions/invocations/${queued}`)).body.status, 'PENDING');
    const cancelled = await cancel(queued);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.cause.code, 'CANCELLED');
    hold.release();
    assert.equal((await waitInvocation(svc, first)).status, 'COMPLETED');
    const third = await invoke('third');
    assert.equal((await waitInvocation(svc, third)).status, 'COMPLETED');
    assert.equal(hold.seen(), 2, 'only "first" and "third" reached their handlers');
  });

  it('answers 404 for an unknown invocation or one of another project, and 400 for a malformed ID', async () => {
    const id = await invoke('foreign');
    const other = (method: string, path: string) => svc.request(method, path, undefined, { 'x-svc-api-key': 'other-key' });
    assert.equal((await cancel(id, other)).status, 404);
    assert.equal((await cancel('00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await cancel('not-an-id')).status, 400);
    assert.equal((await cancel(id)).status, 200);
  });

  it('browserfn invoke --cancel-on-interrupt cancels the invocation on Ctrl-C', async () => {
    const child = spawn(process.execPath, [CLI, 'invoke', fnId, '--params', JSON.stringify({ url: hold.url, tag: 'cli' }), '--poll-ms', '100', '--cancel-on-interrupt'], {
      env: { ...process.env, BROWSERFN_API_KEY: svc.apiKey, BROWSERFN_API_URL: svc.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await hold.arrived(1);
    const id = /Invocation ([0-9a-f-]{36})/.exec(stderr)?.[1];
    assert.ok(id, stderr);
    child.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.match(stderr, /Cancelling the invocation…\n.*FAILED: CANCELLED/);
    assert.equal((await svc.request('GET', `/v1/functions/invocations/${id}`)).body.cause.code, 'CANCELLED');
  });
});

describe('browserfn invoke --cancel-on-interrupt, Ctrl-C before the invoke is answered', function () {
  this.timeout(60_000);

  it('cancels the invocation the invoke creates once its answer comes', async () => {
    // The API's side is played here so the invoke's answer can be held until after the Ctrl-C.
    const id = randomUUID();
    const calls: string[] = [];
    let answerInvoke: () => void = () => undefined;
    let invokeArrived: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (invokeArrived = resolve));
    const api = createServer((req, res) => {
      calls.push(`${req.method} ${req.url}`);
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url?.endsWith('/invoke')) {
        answerInvoke = () => json(202, { id, sessionId: randomUUID(), status: 'PENDING' });
        invokeArrived();
      } else if (req.url === `/v1/functions/invocations/${id}/cancel`) json(200, { id, status: 'FAILED', cause: { code: 'CANCELLED' } });
      else json(200, { id, status: 'PENDING' });
    });
    servers.push(api);
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const child = spawn(process.execPath, [CLI, 'invoke', randomUUID(), '--poll-ms', '100', '--cancel-on-interrupt'], {
      env: { ...process.env, BROWSERFN_API_KEY: 'k', BROWSERFN_API_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await arrived;
    child.kill('SIGINT');
    await waitFor('the CLI to say it cancels', async () => (stderr.includes('Cancelling the invocation') ? true : undefined), 10_000, 20);
    answerInvoke();
    assert.equal(await exited, 130, stderr);
    assert.ok(calls.includes(`POST /v1/functions/invocations/${id}/cancel`), calls.join(', '));
    assert.match(stderr, new RegExp(`Invocation ${id} FAILED: CANCELLED`));
  });

  const servers: Server[] = [];
  after(() => {
    for (const server of servers) (server.closeAllConnections(), server.close());
  });
});
