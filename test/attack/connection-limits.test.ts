// A client that opens many connections and sends each a partial request (a slowloris) gets no more
// than BROWSERFN_MAX_CONNECTIONS_PER_CLIENT of them: the next ones are closed at once, while another
// client is served, and the first is served again once its connections close.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { startApiOnly, type ApiOnlyService } from '../support/api-only.js';
import { waitFor } from '../support/service.js';

const LIMIT = 20;

describe('attack: many half-sent connections from one client', function () {
  this.timeout(60_000);
  let api: ApiOnlyService;
  let port: number;

  before(async () => {
    api = await startApiOnly({ BROWSERFN_MAX_CONNECTIONS_PER_CLIENT: String(LIMIT) });
    port = Number(new URL(api.url).port);
  });
  after(() => api?.stop());

  /** A connection from `localAddress` that sends the start of a request and stops there. */
  async function halfSent(localAddress: string): Promise<Socket> {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    // A connection the server closes may end in a reset.
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    socket.write('GET /v1/functions HTTP/1.1\r\nHost: 127.0.0.1\r\nx-svc-');
    return socket;
  }

  /** GET /v1/functions over a connection from `localAddress`. */
  function listFunctions(localAddress: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, localAddress, path: '/v1/functions', headers: { 'x-svc-api-key': api.apiKey }, agent: false }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      });
      req.once('error', reject);
      req.end();
    });
  }

  it('closes connections past the limit at once, serves other clients meanwhile, and the client again once it lets go', async () => {
    const held: Socket[] = [];
    try {
      for (let i = 0; i < LIMIT; i++) held.push(await halfSent('127.0.0.2'));
      const over = await halfSent('127.0.0.2');
      // Without the limit it would stay open until the headers time out (66 s), past this test's time.
      await once(over, 'close');
      assert.ok(held.every((socket) => !socket.destroyed), 'those within it stay open');
      assert.equal(await listFunctions('127.0.0.4'), 200, 'another client is served');
    } finally {
      for (const socket of held) socket.destroy();
    }
    const status = await waitFor('the client served again', () => listFunctions('127.0.0.2').catch(() => undefined), 30_000, 50);
    assert.equal(status, 200);
  });
});
