// A request refused before its body has all arrived (no route, no key, too large): the client gets
// the answer even when it sends its whole body before reading (as @browserbasehq/sdk's uploads and
// most HTTP clients do), rather than a broken pipe; a body that keeps coming is cut off with its
// connection after a while or past 64 MiB (or the largest upload the operator allows, when more),
// so a refused request cannot hold one for ever; a client that waits on `Expect: 100-continue` is
// asked for its body only once a route reads it.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/config/logger.js';
import { loadSettings } from '../../src/config/settings.js';
import { startService } from '../../src/server/service.js';
import Browserbase from '@browserbasehq/sdk';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';

describe('requests refused before their body arrived', function () {
  this.timeout(120_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc?.stop());

  it('answers @browserbasehq/sdk uploads (not served) with its 404, not a connection error', async () => {
    const bb = new Browserbase({ apiKey: svc.apiKey, baseURL: svc.url, maxRetries: 0 });
    const build = await publish(svc, writeProject({ 'index.ts': "import { defineFn } from 'browserfn';\ndefineFn('one', async () => 1);" }));
    const { sessionId } = await invokeAndWait(svc, build.builtFunctions![0].id, {});
    for (const size of [1, 4 << 20]) {
      await assert.rejects(bb.sessions.uploads.create(sessionId, { file: new File([new Uint8Array(size)], 'x.bin') }), (err: { status?: number; message?: string }) => {
        assert.equal(err.status, 404, `${size} bytes: ${err.message}`);
        assert.match(err.message ?? '', /No route for POST/);
        return true;
      });
    }
  });

  it('reads the body that follows a refusal, keeping the connection for the next request', async () => {
    // The client's body follows its headers in writes of their own, as @browserbasehq/sdk's multipart
    // uploads go: a connection closed on the answer broke the body's writes (EPIPE) in one call of two.
    const { hostname, port } = new URL(svc.url);
    const socket = connect(Number(port), hostname);
    socket.on('error', () => undefined);
    let received = '';
    let closed = false;
    let onChange: () => void = () => undefined;
    socket.on('data', (chunk) => ((received += chunk.toString()), onChange()));
    socket.once('close', () => ((closed = true), onChange()));
    /** Until the connection has carried `count` answers; failing if it closes first. */
    const answers = (count: number) =>
      new Promise<void>((resolve, reject) => {
        onChange = () => {
          if ((received.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0) >= count) resolve();
          else if (closed) reject(new Error(`the connection closed after: ${received}`));
        };
        onChange();
      });
    const body = 'x'.repeat(100_000);
    socket.write(`POST /v1/sessions/00000000-0000-4000-8000-000000000000/uploads HTTP/1.1\r\nHost: ${hostname}\r\nx-svc-api-key: ${svc.apiKey}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n`);
    await answers(1);
    assert.match(received, /^HTTP\/1\.1 404 /);
    socket.write(body);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    await answers(2);
    assert.match(received, /HTTP\/1\.1 200 OK[\s\S]*"status":"ok"/);
    socket.destroy();
  });

  it('answers a large body sent whole to no route, or without a key, with its 4xx', async () => {
    const body = new Uint8Array(8 << 20);
    const noRoute = await fetch(`${svc.url}/v1/nowhere`, { method: 'POST', headers: { 'x-svc-api-key': svc.apiKey, 'content-type': 'application/octet-stream' }, body });
    assert.equal(noRoute.status, 404);
    assert.match(((await noRoute.json()) as { message: string }).message, /No route for POST \/v1\/nowhere/);
    const noKey = await fetch(`${svc.url}/v1/functions/builds`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body });
    assert.equal(noKey.status, 401);
  });

  it('answers a refused upload sent whole when the operator allows uploads past 64 MiB (BROWSERFN_MAX_ARCHIVE_BYTES)', async () => {
    const large = await startTestService({ BROWSERFN_MAX_ARCHIVE_BYTES: String(100 << 20) });
    try {
      // Sent whole before the answer is read, as @browserbasehq/sdk's uploads are: the server must not cut the connection meanwhile.
      const { hostname, port } = new URL(large.url);
      const socket = connect(Number(port), hostname);
      let answer = '';
      let closed = false;
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => (closed = true));
      const size = 90 << 20;
      socket.write(`POST /v1/functions/builds HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${size}\r\n\r\n`);
      const chunk = Buffer.alloc(1 << 20);
      for (let sent = 0; sent < size && !closed; sent += chunk.length) {
        if (!socket.write(chunk)) await Promise.race([once(socket, 'drain'), once(socket, 'close')]);
      }
      assert.equal(closed, false, 'the server cut the connection before the whole upload was sent');
      await waitFor('the answer', async () => (answer.includes('Missing API key') ? true : undefined), 10_000, 10);
      assert.match(answer, /^HTTP\/1\.1 401 /);
      socket.destroy();
    } finally {
      await large.stop();
    }
  });

  /** A raw connection that has sent `headers` of a POST to no route announcing a 1 GB body, and what it has been answered. */
  function refusedUpload(headers = ''): { socket: Socket; answer: () => string } {
    const { hostname, port } = new URL(svc.url);
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.write(`POST /v1/nowhere HTTP/1.1\r\nHost: ${hostname}\r\n${headers}Content-Length: 1000000000\r\n\r\n`);
    return { socket, answer: () => answer };
  }

  it('cuts off a refused body past 64 MiB (above the default largest upload), answering it first', async () => {
    const { socket, answer } = refusedUpload();
    const chunk = Buffer.alloc(1 << 20);
    let sent = 0;
    let closed = false;
    const closing = new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve())));
    while (!closed && sent < 200) {
      // A reset (the cut-off) ends the wait as the close does.
      if (!socket.write(chunk)) await Promise.race([once(socket, 'drain').catch(() => undefined), closing]);
      sent += 1;
    }
    await closing;
    assert.ok(sent < 200, `cut off before 200 MiB: ${sent} MiB sent`);
    assert.match(answer(), /^HTTP\/1\.1 404 /);
  });

  it('cuts off a refused body that keeps coming, answering it first', async () => {
    const { socket, answer } = refusedUpload(`x-svc-api-key: ${svc.apiKey}\r\n`);
    // A kilobyte every 50 ms, until the server closes the connection.
    const drip = setInterval(() => socket.write(Buffer.alloc(1024)), 50);
    await new Promise((resolve) => socket.once('close', resolve));
    clearInterval(drip);
    assert.match(answer(), /^HTTP\/1\.1 404 /);
  });

  it('asks for a body (100 Continue) only once the route reads it: a request without a key or with too large a body gets its answer first, and its connection closes', async () => {
    const { hostname, port } = new URL(svc.url);
    /** What the server sends first to a request that expects 100-continue and sends no body, and whether it then closes. */
    const firstAnswer = async (head: string) => {
      const socket = connect(Number(port), hostname);
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      const closed = once(socket, 'close');
      socket.write(`${head}\r\nHost: ${hostname}\r\nExpect: 100-continue\r\n\r\n`);
      await waitFor('an answer', async () => (received.includes('\r\n\r\n') ? true : undefined), 10_000, 10);
      return { received: () => received, socket, closed };
    };
    for (const head of [
      'POST /v1/secrets HTTP/1.1\r\nx-svc-api-key: wrong\r\nContent-Type: application/json\r\nContent-Length: 100000',
      'POST /v1/functions/builds HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 100000',
      `POST /v1/secrets HTTP/1.1\r\nx-svc-api-key: ${svc.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 999999999`,
    ]) {
      const answer = await firstAnswer(head);
      const received = answer.received();
      assert.match(received, /^HTTP\/1\.1 4\d\d /, `${head.split('\r\n')[0]}: ${received.slice(0, 200)}`);
      assert.doesNotMatch(received, /100 Continue/);
      assert.match(received, /connection: close/i);
      await answer.closed;
    }
    const { received, socket } = await firstAnswer(`POST /v1/secrets HTTP/1.1\r\nx-svc-api-key: ${svc.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 2`);
    assert.match(received(), /^HTTP\/1\.1 100 Continue\r\n\r\n$/, 'a request the route reads is asked for its body');
    socket.write('{}');
    await waitFor('the final answer', async () => (/\r\n\r\nHTTP\/1\.1 \d{3} /.test(received()) ? true : undefined), 10_000, 10);
    assert.match(received(), /\r\n\r\nHTTP\/1\.1 400 .*body\.secretKey is required/s, 'the body it asked for was read');
    socket.destroy();
  });

  it('takes a client gone mid-body for what it is: a 400 nobody reads, no server error in the log', async () => {
    const lines: { level: number; msg: string }[] = [];
    const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-gone-'));
    const settings = loadSettings({ dataDir, port: 0, host: '127.0.0.1', env: { BROWSERFN_API_KEYS: 'gone-key:default' } });
    const destination = { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) };
    const service = await startService(settings, { backend: 'embedded', api: true, controllers: false, nodeAgent: false, nodeName: 'none', image: 'browserfn:test' }, createLogger('info', destination));
    try {
      const { hostname, port } = new URL(service.url);
      const socket = connect(Number(port), hostname);
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      // A JSON route that reads its body: the client goes before the body's end, once the server has
      // the request (it says 100 Continue as it takes it).
      socket.write(`POST /v1/secrets HTTP/1.1\r\nHost: ${hostname}\r\nx-svc-api-key: gone-key\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n`);
      await once(socket, 'data');
      socket.write('{"secretKey":"');
      socket.destroy();
      await waitFor('the request to end', async () => ((await fetch(`${service.url}/healthz`)).ok ? true : undefined), 10_000, 50);
      assert.deepEqual(lines.filter((line) => line.level >= 50).map((line) => line.msg), []);
    } finally {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
