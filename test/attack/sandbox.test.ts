// Attack reproduction: a Function tries to leave its pod — the server's data dir through file://
// in its own Chromium, the server's environment, host loopback ports, a UNIX socket outside its
// folder, other processes — and gets nothing, because each pod runs in its own sandbox
// (bubblewrap + pasta). Real stack, real Chromium, real processes.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { HOST_ID_BLOCKS, hostIdBlock } from '../../src/runtime/node-agent/host-ids.js';
import { defaultRuntimeModulesDir } from '../../src/runtime/sandbox/runtime-modules.js';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';
import { processTreeOf, realUidOf } from '../support/processes.js';

const PACKAGE_ROOT = dirname(defaultRuntimeModulesDir());

const PROBE_FN = `
import { defineFn } from 'browserfn';
import CDP from 'chrome-remote-interface';
import net from 'node:net';

function connect(options) {
  return new Promise((resolve) => {
    const socket = net.connect(options);
    socket.setTimeout(3000, () => { socket.destroy(); resolve('timeout'); });
    socket.once('connect', () => { socket.destroy(); resolve('connected'); });
    socket.once('error', (err) => resolve(err.code || String(err)));
  });
}

/** Opens a URL in the pod's own Chromium and returns the page text, or the navigation error. */
async function readInBrowser(client, url, expression = 'document.body ? document.body.innerText : ""') {
  const { targetId } = await client.Target.createTarget({ url: 'about:blank' });
  const { sessionId } = await client.Target.attachToTarget({ targetId, flatten: true });
  try {
    const nav = await client.send('Page.navigate', { url }, sessionId);
    if (nav.errorText) return { error: nav.errorText };
    const evaluate = async (expression) => (await client.send('Runtime.evaluate', { expression, returnByValue: true }, sessionId)).result.value;
    for (let i = 0; i < 200 && (await evaluate('document.readyState')) !== 'complete'; i++) await new Promise((r) => setTimeout(r, 25));
    return { text: await evaluate(expression) };
  } finally {
    await client.Target.closeTarget({ targetId });
  }
}

defineFn('probe', async (ctx, params) => {
  const client = await CDP({ target: ctx.session.connectUrl });
  try {
    const files = {};
    for (const name of ['store.key', 'pod-token.secret', 'store.db', 'api-key']) files[name] = await readInBrowser(client, 'file://' + params.dataDir + '/' + name);
    // The package's root (where the default data dir .data lives) is not there, at its path or beside its code.
    files.packageRoot = await readInBrowser(client, 'file://' + params.packageRoot + '/package.json');
    // The operator's npm config (a registry token may be there), beside the software of /usr.
    files.operatorNpmrc = await readInBrowser(client, 'file:///usr/etc/npmrc');
    // Chromium lists a directory as one addRow(name, url, isDirectory, ...) script a row, which the full
    // browser's listing page turns into links; the headless shell has no such page, only the scripts.
    const listing = 'Array.from(document.scripts, (s) => s.textContent.trim()).filter((t) => t.startsWith("addRow(")).map((t) => JSON.parse("[" + t.slice(7, t.lastIndexOf(")")) + "]")).map(([name, , isDirectory]) => name + (isDirectory ? "/" : "")).join(" ")';
    const packageListing = await readInBrowser(client, 'file:///opt/browserfn/', listing);
    // The pod's own listeners (its browser, its agent's runtime API) are on its own loopback, and may fall in the window.
    const ownPorts = new Set([Number(new URL(ctx.session.connectUrl).port), Number((process.env.AWS_LAMBDA_RUNTIME_API || '').split(':').pop())]);
    const scan = [];
    for (let port = params.canaryPort - 20; port <= params.canaryPort + 20; port++) {
      if (port !== params.controlPort && !ownPorts.has(port) && (await connect({ host: '127.0.0.1', port })) === 'connected') scan.push(port);
    }
    const procListing = await readInBrowser(client, 'file:///proc/', listing);
    return {
      control: await readInBrowser(client, 'file:///etc/hosts'),
      files,
      serverEnviron: await readInBrowser(client, 'file:///proc/' + params.serverPid + '/environ'),
      pids: (procListing.text || '').split(' ').filter((name) => /^\\d+\\/$/.test(name)).map((name) => parseInt(name, 10)),
      packageEntries: (packageListing.text || '').split(' ').filter((name) => /^[\\w.-]+\\/?$/.test(name)).sort(),
      canary: await connect({ host: '127.0.0.1', port: params.canaryPort }),
      controlPlane: await connect({ host: '127.0.0.1', port: params.controlPort }),
      openLoopbackPorts: scan,
      unixSocket: await connect({ path: params.socketPath }),
    };
  } finally {
    await client.close();
  }
});

defineFn('title', async (ctx) => {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  const page = browser.contexts()[0].pages()[0];
  await page.goto('data:text/html,<title>inside the sandbox</title>');
  return page.title();
});

// Node opens its inspector on SIGUSR1: the pod's agent is this process's parent (or the launcher running it).
defineFn('signal-agent', async () => {
  process.kill(process.ppid, 'SIGUSR1');
  let inspector = await connect({ host: '127.0.0.1', port: 9229 });
  for (const deadline = Date.now() + 2000; inspector !== 'connected' && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    inspector = await connect({ host: '127.0.0.1', port: 9229 });
  }
  return { parent: process.ppid, inspector };
});

defineFn('hold', async () => {
  await new Promise((resolve) => setTimeout(resolve, 120000));
});
`;

interface Probe {
  control: { text?: string; error?: string };
  files: Record<string, { text?: string; error?: string }>;
  serverEnviron: { text?: string; error?: string };
  pids: number[];
  packageEntries: string[];
  canary: string;
  controlPlane: string;
  openLoopbackPorts: number[];
  unixSocket: string;
}

function listen(server: Server, target: number | string): Promise<void> {
  return new Promise((resolve) => (typeof target === 'number' ? server.listen(target, '127.0.0.1', resolve) : server.listen(target, resolve)));
}

/** Host processes whose real uid is one a node agent gives pods (of any block). */
function podUserProcesses(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const uid = realUidOf(Number(entry));
    if (uid !== undefined && uid >= hostIdBlock(0).podUids.first && uid < hostIdBlock(HOST_ID_BLOCKS).podUids.first) found.push(Number(entry));
  }
  return found;
}

describe('attack: a Function leaving its pod sandbox', function () {
  this.timeout(300_000);
  let svc: TestService;
  let canary: Server;
  let socketServer: Server;
  let socketDir: string;
  let functionIds: Record<string, string>;
  let serviceStopped = false;

  before(async () => {
    canary = createServer((socket) => socket.end('secret'));
    await listen(canary, 0);
    socketDir = mkdtempSync(join(tmpdir(), 'browserfn-attack-'));
    socketServer = createServer((socket) => socket.end('secret'));
    await listen(socketServer, join(socketDir, 'canary.sock'));
    // bwrap: refuse to start rather than silently run unsandboxed; the pod's own network.
    svc = await startTestService({ BROWSERFN_SANDBOX: 'bwrap', BROWSERFN_SANDBOX_NETWORK: 'pasta' });
    const build = await publish(svc, writeProject({ 'index.ts': PROBE_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    functionIds = Object.fromEntries(build.builtFunctions!.map((fn) => [fn.name, fn.id]));
  });
  after(async () => {
    if (serviceStopped) rmSync(svc.dataDir, { recursive: true, force: true });
    else await svc?.stop();
    canary?.close();
    socketServer?.close();
    if (socketDir) rmSync(socketDir, { recursive: true, force: true });
  });

  it('gets nothing of the data dir, the server, host loopback ports, outside sockets or other processes', async () => {
    const params = {
      dataDir: svc.dataDir,
      serverPid: process.pid,
      canaryPort: (canary.address() as AddressInfo).port,
      controlPort: Number(new URL(svc.url).port),
      socketPath: join(socketDir, 'canary.sock'),
      packageRoot: PACKAGE_ROOT,
    };
    const done = await invokeAndWait(svc, functionIds.probe, { params });
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    const probe = done.results as Probe;
    if (process.env.ATTACK_DEBUG) console.log(JSON.stringify(probe, null, 1).slice(0, 3000));
    // The probes work: the pod reads what it is given (/etc/hosts) and reaches the control plane.
    assert.ok(probe.control.text !== undefined, `file:///etc/hosts must be readable in the pod: ${JSON.stringify(probe.control)}`);
    assert.equal(probe.controlPlane, 'connected');
    for (const [name, read] of Object.entries(probe.files)) assert.ok(read.error, `${name} of the data dir was readable: ${JSON.stringify(read).slice(0, 200)}`);
    assert.ok(probe.serverEnviron.error, 'the server process is visible');
    assert.equal(probe.canary, 'ECONNREFUSED', 'a host loopback port was reachable');
    assert.deepEqual(probe.openLoopbackPorts, []);
    assert.equal(probe.unixSocket, 'ENOENT', 'a UNIX socket outside the pod was reachable');
    assert.deepEqual(probe.packageEntries, ['dist/', 'node_modules/', 'package.json'], 'only the package code is mounted');
    // Its own PID namespace: PID 1 is the sandbox's, and only the pod's few processes exist.
    assert.ok(probe.pids.includes(1), `pids seen: ${probe.pids.join(' ')}`);
    assert.ok(probe.pids.length < 60 && Math.max(...probe.pids) < 1000, `pids seen: ${probe.pids.join(' ')}`);
    assert.ok(!probe.pids.includes(process.pid), 'the server process is visible');
  });

  it('cannot open the inspector of its pod\'s agent (SIGUSR1), which holds the pod token', async () => {
    const done = await invokeAndWait(svc, functionIds['signal-agent'], {});
    assert.equal(done.status, 'COMPLETED', `the agent survives the signal: ${JSON.stringify(done.cause)}`);
    const { parent, inspector } = done.results as { parent: number; inspector: string };
    assert.ok(parent > 1, `the handler's parent is the agent: ${parent}`);
    assert.notEqual(inspector, 'connected', 'the agent opened its inspector on 127.0.0.1:9229');
  });

  it('still runs a normal invocation (playwright-core over CDP)', async () => {
    const done = await invokeAndWait(svc, functionIds.title, {});
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    assert.equal(done.results, 'inside the sandbox');
  });

  it('runs pods as their own unprivileged users, Chromium with its own sandbox; stopping leaves none of their processes', async function () {
    if (process.getuid?.() !== 0) this.skip(); // per-pod users need a root server
    const created = await svc.request('POST', `/v1/functions/${functionIds.hold}/invoke`, {});
    assert.equal(created.status, 202);
    const cmdline = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      } catch {
        return [];
      }
    };
    // Only this service's pods (they descend from this process): other servers on the machine may run pods as these users too.
    const ourPodProcesses = () => {
      const tree = new Set(processTreeOf(new Set([process.pid])).map((p) => p.pid));
      return podUserProcesses().filter((pid) => tree.has(pid));
    };
    const chromium = await waitFor('the pod\'s Chromium to run as a pod user', async () => {
      const found = ourPodProcesses().map(cmdline).find((args) => args.some((arg) => arg.startsWith('--remote-debugging-port')));
      return found;
    }, 60_000);
    assert.ok(!chromium.includes('--no-sandbox'), `Chromium runs with its own sandbox: ${chromium.join(' ')}`);
    const before = ourPodProcesses();
    serviceStopped = true;
    await svc.service.stop();
    // Orphans are reparented away from this process, so those seen before the stop are looked up by pid.
    const living = new Set(podUserProcesses());
    // Each as its /proc stat line: a zombie (state Z) shows which parent failed to reap it.
    const stat = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8').trim();
      } catch {
        return `${pid} gone`;
      }
    };
    assert.deepEqual(before.filter((pid) => living.has(pid)).map(stat), [], 'processes of the pod outlived the stop');
  });
});

describe('serve without the sandbox', function () {
  this.timeout(60_000);

  it('refuses to serve more than one project, saying why and what to install', async () => {
    await assert.rejects(startTestService({ BROWSERFN_SANDBOX: 'off' }), (err: Error) => {
      assert.match(err.message, /2 projects/);
      assert.match(err.message, /bubblewrap/);
      assert.match(err.message, /BROWSERFN_SANDBOX=off/);
      return true;
    });
  });

  it('serves a single project', async () => {
    const svc = await startTestService({ BROWSERFN_SANDBOX: 'off', BROWSERFN_API_KEYS: 'only-key:default' });
    await svc.stop();
  });
});
