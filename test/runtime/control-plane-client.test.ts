// The in-pod client of the control plane: how long each call rides out a control plane that is away.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { ControlPlaneClient } from '../../src/runtime/agent-common/control-plane-client.js';
import { httpCall, readBody } from '../../src/runtime/agent-common/http-call.js';

describe('control plane client (in pods)', function () {
  this.timeout(60_000);
  let server: Server;
  let asked = 0;
  let unavailableFor = 0;

  before(async () => {
    server = createServer((req, res) => {
      asked += 1;
      // The API pods rolling: every answer a 503 for a while, then the assignment.
      if (asked <= unavailableFor) {
        res.statusCode = 503;
        res.end('no endpoints available');
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ invocationId: 'i-1', path: req.url }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = () => new ControlPlaneClient({ controlUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, namespace: 'p', podName: 'member-1', podToken: 't' });

  it('a waiting pool member asks again through a control plane away for seconds (a roll of the API pods), and gets its assignment', async () => {
    asked = 0;
    unavailableFor = 5;
    const input = (await client().waitForAssignment(0)) as { invocationId: string; path: string };
    assert.equal(input.invocationId, 'i-1');
    assert.equal(input.path, '/internal/v1/pods/p/member-1/assignment?waitSeconds=0');
    assert.equal(asked, 6, 'five refused asks, then the one answered');
  });

  it('a member still starting asks without counting as ready, and drops that ask at once when it no longer wants it', async () => {
    const asks: { path?: string; closed: boolean }[] = [];
    const holding = createServer((req, res) => {
      const ask = { path: req.url, closed: false };
      asks.push(ask);
      // The long wait of a member not yet claimed: no answer until the asker goes.
      res.once('close', () => (ask.closed = true));
    });
    await new Promise<void>((resolve) => holding.listen(0, '127.0.0.1', resolve));
    try {
      const member = new ControlPlaneClient({ controlUrl: `http://127.0.0.1:${(holding.address() as AddressInfo).port}`, namespace: 'p', podName: 'member-1', podToken: 't' });
      const superseded = new AbortController();
      const ask = member.waitForAssignment(20, { ready: false, signal: superseded.signal });
      await waitUntil(() => asks.length === 1);
      assert.equal(asks[0].path, '/internal/v1/pods/p/member-1/assignment?waitSeconds=20&ready=false');
      superseded.abort();
      await assert.rejects(ask, /no longer wanted/);
      await waitUntil(() => asks[0].closed);
      assert.equal(asks.length, 1, 'a dropped ask is not retried');
    } finally {
      holding.closeAllConnections();
      await new Promise<void>((resolve) => holding.close(() => resolve()));
    }
  });

  it('an input fetch gives up sooner: a cold pod that cannot start is failed and started again by its controller', async () => {
    asked = 0;
    unavailableFor = 5;
    await assert.rejects(client().getInput(), /GET \/input: HTTP 503/);
    assert.equal(asked, 3);
  });

  it('sends the report with its length, and reads the answer', async () => {
    let received: { length?: string; body: string; authorization?: string } | undefined;
    const reportServer = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received = { length: req.headers['content-length'], body: Buffer.concat(chunks).toString('utf8'), authorization: req.headers.authorization };
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => reportServer.listen(0, '127.0.0.1', resolve));
    try {
      const port = (reportServer.address() as AddressInfo).port;
      const reporter = new ControlPlaneClient({ controlUrl: `http://127.0.0.1:${port}`, namespace: 'p', podName: 'pod-1', podToken: 'secret-token' });
      await reporter.postReport({ kind: 'invocation', phase: 'COMPLETED', startedAt: 'a', endedAt: 'b', logs: [], sessionLogs: [], metrics: [], results: { text: 'é' } } as never);
      assert.ok(received);
      assert.equal(received.authorization, 'Bearer secret-token');
      assert.equal(Number(received.length), Buffer.byteLength(received.body), 'the length counts bytes, not characters');
      assert.deepEqual(JSON.parse(received.body).results, { text: 'é' });
    } finally {
      await new Promise<void>((resolve) => reportServer.close(() => resolve()));
    }
  });

  it('breaks off an answer whose body stops coming at its time limit', async () => {
    const stalling = createServer((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('only part of it');
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await httpCall(`http://127.0.0.1:${(stalling.address() as AddressInfo).port}/`, { method: 'GET', timeoutMs: 300 });
      assert.equal(answer.statusCode, 200);
      await assert.rejects(readBody(answer), /no complete answer within 0\.3 s/);
    } finally {
      stalling.closeAllConnections();
      await new Promise<void>((resolve) => stalling.close(() => resolve()));
    }
  });

  it("leaves fetch's client unloaded in the agent's process (compiling it costs every pod about 40 ms of CPU)", async () => {
    const port = (server.address() as AddressInfo).port;
    const moduleUrl = new URL('../../src/runtime/agent-common/control-plane-client.js', import.meta.url).href;
    const script = `
      const { ControlPlaneClient } = await import(${JSON.stringify(moduleUrl)});
      const client = new ControlPlaneClient({ controlUrl: 'http://127.0.0.1:${port}', namespace: 'p', podName: 'pod-1', podToken: 't' });
      const input = await client.getInput();
      console.log(JSON.stringify({ input, undici: process.moduleLoadList.some((name) => name.includes('undici')) }));`;
    unavailableFor = 0;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
    const { input, undici } = JSON.parse(stdout) as { input: { path: string }; undici: boolean };
    assert.equal(input.path, '/internal/v1/pods/p/pod-1/input');
    assert.equal(undici, false);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
