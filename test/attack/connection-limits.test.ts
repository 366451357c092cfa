// A client that opens many connections and sends each a partial request (a slowloris) gets no more
// than BROWSERFN_MAX_CONNECTIONS_PER_CLIENT of them: the next ones are closed at once, while another
// client is served, and the first is served again once its connections close. A pod doing the same
// takes only its own entrance's allowance (src/server/pod-entrances.ts), not that of 127.0.0.1,
// where every pod's connections come from.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { startApiOnly, type ApiOnlyService } from '../support/api-only.js';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { publish, waitInvocation } from '../support/publish.js';

/** The test service's second project's key (test/support/service.ts). */
const OTHER_KEY = 'other-key';

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

const POD_ALLOWANCE = 16;

const HOSTILE_FN = `
import { defineFn } from 'browserfn';
import net from 'node:net';

// Connections to the control plane, each with a request sent half-way: held until the test cancels.
defineFn('hold-connections', async (ctx, params) => {
  const sockets = [];
  for (let i = 0; i < params.count; i++) {
    const socket = net.connect({ host: '127.0.0.1', port: params.port });
    socket.on('error', () => undefined);
    socket.on('connect', () => socket.write('GET /v1/functions HTTP/1.1\\r\\nHost: x\\r\\nx-a: '));
    sockets.push(socket);
  }
  await new Promise((resolve) => setTimeout(resolve, 120000));
  return sockets.filter((socket) => !socket.destroyed).length;
});

defineFn('served', async () => 'served');
`;

/** Established connections this process serves on 127.0.0.1 (server ends only: their local port is one it listens on). */
function servedConnections(): number {
  const ours = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) ours.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  const rows = readFileSync('/proc/self/net/tcp', 'utf8').trim().split('\n').slice(1).map((line) => line.trim().split(/\s+/));
  // Columns: sl, local address, remote address, state, …, inode (10th).
  const mine = rows.filter((row) => ours.has(row[9]));
  const listening = new Set(mine.filter((row) => row[3] === '0A').map((row) => row[1].split(':')[1]));
  return mine.filter((row) => row[3] === '01' && row[1].startsWith('0100007F:') && listening.has(row[1].split(':')[1])).length;
}

describe('attack: one pod holding many control-plane connections (pods on their own network)', function () {
  this.timeout(240_000);
  let svc: TestService;
  let ids: Record<string, string>;

  before(async () => {
    svc = await startTestService({ BROWSERFN_SANDBOX: 'bwrap', BROWSERFN_SANDBOX_NETWORK: 'pasta', BROWSERFN_MAX_CONNECTIONS_PER_CLIENT: String(POD_ALLOWANCE) });
    const hostile = await publish(svc, writeProject({ 'index.ts': HOSTILE_FN }));
    assert.equal(hostile.status, 'COMPLETED', JSON.stringify(hostile.cause));
    const other = await publish(svc, writeProject({ 'index.ts': HOSTILE_FN }), 'index.ts', { 'x-svc-api-key': OTHER_KEY });
    assert.equal(other.status, 'COMPLETED', JSON.stringify(other.cause));
    ids = {
      hostile: hostile.builtFunctions!.find((fn) => fn.name === 'hold-connections')!.id,
      victim: other.builtFunctions!.find((fn) => fn.name === 'served')!.id,
    };
  });
  after(async () => svc?.stop());

  it('takes the allowance of its own entrance only: another project\'s pod and local clients are served meanwhile', async () => {
    const before = servedConnections();
    const port = Number(new URL(svc.url).port);
    const held = await svc.request('POST', `/v1/functions/${ids.hostile}/invoke`, { params: { port, count: 4 * POD_ALLOWANCE } });
    assert.equal(held.status, 202, JSON.stringify(held.body));
    try {
      // Every pod's connections come from 127.0.0.1 on the host: counted as that address's, these
      // (with the pods' and this test's own) would take all of its allowance.
      await waitFor('the hostile pod to hold its connections', async () => (servedConnections() - before >= POD_ALLOWANCE / 2 ? true : undefined), 60_000, 100);
      assert.equal((await fetch(`${svc.url}/healthz`)).status, 200, 'a local client is served');
      const victim = await svc.request('POST', `/v1/functions/${ids.victim}/invoke`, {}, { 'x-svc-api-key': OTHER_KEY });
      assert.equal(victim.status, 202, JSON.stringify(victim.body));
      const done = await waitInvocation(svc, victim.body.id, 120_000, { 'x-svc-api-key': OTHER_KEY });
      assert.equal(done.status, 'COMPLETED', `another project's pod reached the control plane: ${JSON.stringify(done.cause)}`);
      assert.equal(done.results, 'served');
    } finally {
      await svc.request('POST', `/v1/functions/invocations/${held.body.id}/cancel`, {});
    }
  });
});
