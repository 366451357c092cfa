// The code loader fetches the browser's protocol description once, ahead of the handler, and
// chrome-remote-interface's connects to that browser use the copy; a pool member that preloads the
// client warms its connect up before it says it is ready. Run here as the agent runs it (its stdin
// instructions, its channel, the runtime modules linked beside the code), against servers that count
// what they are asked.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { LOADER_READY_RECORD, type LoaderInstruction } from '../../src/runtime/sandbox/channel.js';
import { defaultRuntimeModulesDir, linkRuntimeModules } from '../../src/runtime/sandbox/runtime-modules.js';
import { RUNTIME_PACKAGES } from '../../src/schemas/runtime-packages.js';

const CODE_LOADER = fileURLToPath(new URL('../../src/runtime/sandbox/code-loader.js', import.meta.url));

/** Answers /json/protocol with its own descriptor and accepts DevTools WebSockets, counting both. */
interface FakeBrowser {
  port: number;
  wsEndpoint: string;
  descriptor: { version: { major: string; minor: string }; domains: { domain: string; commands: { name: string; parameters: { name: string; type: string }[] }[] }[] };
  protocolRequests: number;
  sockets: number;
  /** The methods of the commands sent over its WebSockets, each answered with an empty result. */
  commands: string[];
  close(): Promise<void>;
}

async function startFakeBrowser(name: string): Promise<FakeBrowser> {
  const descriptor = { version: { major: '1', minor: '3' }, domains: [{ domain: `Fake${name}`, commands: [{ name: 'ping', parameters: [{ name: 'text', type: 'string' }] }] }] };
  const server: Server = createServer((request, response) => {
    if (request.url === '/json/protocol') {
      browser.protocolRequests += 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(descriptor));
      return;
    }
    response.writeHead(404).end();
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket) => {
    browser.sockets += 1;
    socket.on('message', (data) => {
      const { id, method } = JSON.parse(String(data)) as { id: number; method: string };
      browser.commands.push(method);
      socket.send(JSON.stringify({ id, result: {} }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const browser: FakeBrowser = {
    port,
    wsEndpoint: `ws://127.0.0.1:${port}/devtools/browser/${name}`,
    descriptor,
    protocolRequests: 0,
    sockets: 0,
    commands: [],
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return browser;
}

describe('code loader: the browser protocol for chrome-remote-interface', function () {
  this.timeout(60_000);
  let workRoot: string;
  let browser: FakeBrowser;
  let other: FakeBrowser;
  let pods = 0;

  before(async () => {
    workRoot = mkdtempSync(join(tmpdir(), 'browserfn-protocol-cache-'));
    browser = await startFakeBrowser('Pod');
    other = await startFakeBrowser('Other');
  });
  after(async () => {
    await browser.close();
    await other.close();
    rmSync(workRoot, { recursive: true, force: true });
  });
  beforeEach(() => {
    for (const fake of [browser, other]) {
      fake.protocolRequests = 0;
      fake.sockets = 0;
      fake.commands = [];
    }
  });

  interface LoaderRun {
    /** What the bundle printed. */
    printed: unknown;
    /** The pod browser's commands so far when the loader said it was ready (undefined: it never said so). */
    commandsWhenReady: string[] | undefined;
  }

  /** Runs the loader with `bundle` as the code, its instructions written once it is ready or, with `tellEarly`, at once. */
  async function runLoader(bundle: string, instructions: (codeDir: string) => LoaderInstruction[], preload: string[] = [], tellEarly = true): Promise<LoaderRun> {
    pods += 1;
    const podDir = join(workRoot, `pod-${pods}`);
    const codeDir = join(podDir, 'code');
    mkdirSync(codeDir, { recursive: true });
    linkRuntimeModules(podDir, defaultRuntimeModulesDir());
    writeFileSync(join(codeDir, 'main.mjs'), bundle);
    const child = spawn(process.execPath, [CODE_LOADER, codeDir, RUNTIME_PACKAGES.join(','), preload.join(',')], { stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let commandsWhenReady: string[] | undefined;
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const told = instructions(codeDir);
    let left = told.length;
    const tell = (some: LoaderInstruction[]) => {
      for (const instruction of some) child.stdin!.write(`${JSON.stringify(instruction)}\n`);
      left -= some.length;
      if (left === 0) child.stdin!.end();
    };
    const channel = child.stdio[3] as Readable;
    channel.on('data', (chunk: Buffer) => {
      if (commandsWhenReady || !chunk.toString().includes(LOADER_READY_RECORD)) return;
      commandsWhenReady = [...browser.commands];
      // A pool member's bundle comes only after it said it was ready.
      if (!tellEarly) tell(told.filter((instruction) => 'bundle' in instruction));
    });
    tell(tellEarly ? told : told.filter((instruction) => 'browser' in instruction));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, stderr);
    return { printed: JSON.parse(stdout), commandsWhenReady };
  }

  const CONNECTING_BUNDLE = (port: number, otherPort: number) => `
import CDP from 'chrome-remote-interface';
const target = 'ws://127.0.0.1:${port}/devtools/browser/Pod';
const domainsOf = (client) => client.protocol.domains.map((d) => d.domain);
// The client takes the parameters' names out of the descriptor it is given: each must get its own.
const parametersOf = (client) => Object.keys(client['FakePod.ping'].parameters);
const first = await CDP({ target });
const second = await CDP({ target });
const byPort = await CDP.Protocol({ host: 'localhost', port: ${port} });
const otherBrowser = await CDP.Protocol({ host: '127.0.0.1', port: ${otherPort} });
const local = await CDP.Protocol({ host: '127.0.0.1', port: ${port}, local: true });
const viaCallback = await new Promise((resolve, reject) => CDP.Protocol({ host: '127.0.0.1', port: ${port} }, (err, value) => (err ? reject(err) : resolve(value))));
console.log(JSON.stringify({
  first: domainsOf(first), second: domainsOf(second), parameters: [parametersOf(first), parametersOf(second)], byPort: byPort.domains.map((d) => d.domain),
  otherBrowser: otherBrowser.domains.map((d) => d.domain), localDomains: local.domains.length, viaCallback: viaCallback.domains.map((d) => d.domain),
}));
await first.close();
await second.close();
`;

  for (const order of ['browser first', 'bundle first'] as const) {
    it(`a bundle importing it fetches the protocol once, however often it connects (${order})`, async () => {
      const { printed: result, commandsWhenReady } = await runLoader(CONNECTING_BUNDLE(browser.port, other.port), (codeDir) => {
        const told: LoaderInstruction[] = [{ browser: browser.wsEndpoint }, { bundle: join(codeDir, 'main.mjs') }];
        return order === 'browser first' ? told : told.reverse();
      });
      assert.deepEqual(commandsWhenReady, [], 'a cold pod is ready without connecting');
      assert.deepEqual(result, {
        first: ['FakePod'],
        second: ['FakePod'],
        parameters: [['text'], ['text']],
        byPort: ['FakePod'],
        otherBrowser: ['FakeOther'],
        localDomains: (result as { localDomains: number }).localDomains,
        viaCallback: ['FakePod'],
      });
      // chrome-remote-interface's own copy, not the browser's.
      assert.ok((result as { localDomains: number }).localDomains > 10);
      assert.equal(browser.protocolRequests, 1, 'the prefetch is the only request to the pod browser');
      assert.equal(other.protocolRequests, 1, 'another browser is asked as usual');
      assert.ok(browser.sockets >= 2, 'both clients connected');
    });
  }

  it('a pool member that preloads it fetches the protocol and warms its connect up before it is ready', async () => {
    const bundle = `import CDP from 'chrome-remote-interface';
const p = await CDP.Protocol({ host: '127.0.0.1', port: ${browser.port} });
const client = await CDP({ target: '${browser.wsEndpoint}' });
await client.send('FakePod.ping', { text: 'handler' });
await client.close();
console.log(JSON.stringify(p.domains.map((d) => d.domain)));
`;
    const { printed, commandsWhenReady } = await runLoader(bundle, (codeDir) => [{ browser: browser.wsEndpoint }, { bundle: join(codeDir, 'main.mjs') }], ['chrome-remote-interface'], false);
    // Three browser-level, read-only commands on connections of their own, all before it said it was ready.
    assert.deepEqual(commandsWhenReady, ['Browser.getVersion', 'Browser.getVersion', 'Browser.getVersion']);
    assert.deepEqual(printed, ['FakePod']);
    assert.deepEqual(browser.commands, [...commandsWhenReady, 'FakePod.ping']);
    assert.equal(browser.sockets, 4);
    assert.equal(browser.protocolRequests, 1, 'the warm-up builds from the client\'s own copy: the cached one is the handler\'s');
  });

  it('a pool member claimed while it starts (its bundle told before the browser) skips the warm-up: the handler connects first', async () => {
    const bundle = `import CDP from 'chrome-remote-interface';
const client = await CDP({ target: '${browser.wsEndpoint}' });
await client.send('FakePod.ping', { text: 'handler' });
await client.close();
console.log(JSON.stringify('done'));
`;
    const { printed, commandsWhenReady } = await runLoader(bundle, (codeDir) => [{ bundle: join(codeDir, 'main.mjs') }, { browser: browser.wsEndpoint }], ['chrome-remote-interface']);
    assert.equal(printed, 'done');
    assert.deepEqual(commandsWhenReady, [], 'ready without connecting');
    assert.deepEqual(browser.commands, ['FakePod.ping']);
    assert.equal(browser.sockets, 1);
  });

  it('a pool member whose browser refuses the warm-up is ready all the same', async () => {
    const gone = await startFakeBrowser('Gone');
    await gone.close();
    const { printed, commandsWhenReady } = await runLoader("console.log(JSON.stringify('loaded'));\n", (codeDir) => [{ browser: gone.wsEndpoint }, { bundle: join(codeDir, 'main.mjs') }], ['chrome-remote-interface'], false);
    assert.deepEqual(commandsWhenReady, [], 'ready, without a command to any browser');
    assert.equal(printed, 'loaded');
  });

  // The bundle's import and the loader's own loads (its preload, the protocol cache, the warm-up)
  // must meet one instance of the package, fully loaded, whichever instruction comes first.
  const INSTANCE_BUNDLE = `import CDP from 'chrome-remote-interface';
import { createRequire } from 'node:module';
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.endsWith('/chrome-remote-interface/index.js'));
console.log(JSON.stringify({ type: typeof CDP, protocol: CDP.Protocol.name, instances: loaded.length }));
`;
  for (const preload of [[], ['chrome-remote-interface']]) {
    for (const order of ['browser first', 'bundle first'] as const) {
      it(`the bundle's import gets the one instance the loader loaded (${preload.length ? 'pool member' : 'cold pod'}, ${order})`, async () => {
        const { printed } = await runLoader(INSTANCE_BUNDLE, (codeDir) => {
          const told: LoaderInstruction[] = [{ browser: browser.wsEndpoint }, { bundle: join(codeDir, 'main.mjs') }];
          return order === 'browser first' ? told : told.reverse();
        }, preload);
        const { type, protocol, instances } = printed as { type: string; protocol: string; instances: number };
        assert.deepEqual({ type, instances }, { type: 'function', instances: 1 });
        // Told the browser first, the loader answers from its copy before the bundle runs; told the
        // bundle first, the bundle's top level may run before the loader hears of the browser.
        if (order === 'browser first') assert.equal(protocol, 'cachedProtocol');
      });
    }
  }

  it('a bundle that does not import it costs the browser nothing', async () => {
    const { printed, commandsWhenReady } = await runLoader("console.log(JSON.stringify('no client'));\n", (codeDir) => [{ browser: browser.wsEndpoint }, { bundle: join(codeDir, 'main.mjs') }]);
    assert.equal(printed, 'no client');
    assert.deepEqual(commandsWhenReady, []);
    assert.equal(browser.protocolRequests, 0);
    assert.equal(browser.sockets, 0);
  });

  it('a browser that cannot answer leaves chrome-remote-interface to ask it itself', async () => {
    const gone = await startFakeBrowser('Gone');
    const endpoint = gone.wsEndpoint;
    const port = gone.port;
    await gone.close();
    const bundle = `import CDP from 'chrome-remote-interface';\ntry { await CDP.Protocol({ host: '127.0.0.1', port: ${port} }); console.log(JSON.stringify('answered')); } catch (error) { console.log(JSON.stringify(error.code)); }\n`;
    const { printed } = await runLoader(bundle, (codeDir) => [{ browser: endpoint }, { bundle: join(codeDir, 'main.mjs') }]);
    assert.equal(printed, 'ECONNREFUSED');
  });
});
