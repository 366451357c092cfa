// The code loader fetches the browser's protocol description once, ahead of the handler, and
// chrome-remote-interface's connects to that browser use the copy; a pool member that preloads the
// client warms its connect up before it says it is ready. Run as the agent runs it, against fake
// browsers that count what they are asked (support/code-loader-run.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { LoaderInstruction } from '../../src/runtime/sandbox/channel.js';
import { runCodeLoader, startFakeBrowser, useFakeBrowsers, type FakeBrowser, type LoaderRun } from './support/code-loader-run.js';

describe('code loader: the browser protocol for chrome-remote-interface', function () {
  this.timeout(60_000);
  const fakes = useFakeBrowsers('browserfn-protocol-cache-');
  let browser: FakeBrowser;
  let other: FakeBrowser;
  beforeEach(() => ({ browser, other } = fakes));

  /** Runs the loader with `bundle` as the code (a pool member's when it preloads), its instructions written at once or, without `tellEarly`, the bundle once it is ready. */
  function runLoader(bundle: string, instructions: (codeDir: string) => LoaderInstruction[], preload?: string[], tellEarly = true): Promise<LoaderRun> {
    return runCodeLoader({ podDir: fakes.nextPodDir(), bundle, instructions, preload, tellEarly, watched: browser });
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
  for (const preload of [undefined, ['chrome-remote-interface']]) {
    for (const order of ['browser first', 'bundle first'] as const) {
      it(`the bundle's import gets the one instance the loader loaded (${preload ? 'pool member' : 'cold pod'}, ${order})`, async () => {
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
