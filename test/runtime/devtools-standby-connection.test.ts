// The code loader connects chrome-remote-interface to the pod's browser ahead of the handler, and the
// handler's first connect to exactly that browser gets that connection; every other connect is the
// package's own. Run as the agent runs the loader, against fake browsers that note which WebSocket
// each command came on (support/code-loader-run.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { LoaderInstruction } from '../../src/runtime/sandbox/channel.js';
import { runCodeLoader, useFakeBrowsers, type FakeBrowser, type LoaderRun } from './support/code-loader-run.js';

const POOL_MEMBER = ['chrome-remote-interface'];

describe('code loader: the standby chrome-remote-interface connection', function () {
  this.timeout(60_000);
  const fakes = useFakeBrowsers('browserfn-standby-');
  let browser: FakeBrowser;
  let other: FakeBrowser;
  beforeEach(() => ({ browser, other } = fakes));

  const browserThenBundle = (codeDir: string): LoaderInstruction[] => [{ browser: browser.wsEndpoint }, { bundle: join(codeDir, 'main.mjs') }];

  /** A pool member: the bundle is told once the loader said it was ready. */
  function runMember(bundle: string, onReady?: () => void): Promise<LoaderRun> {
    return runCodeLoader({ podDir: fakes.nextPodDir(), bundle, instructions: browserThenBundle, preload: POOL_MEMBER, tellEarly: false, watched: browser, onReady });
  }

  /** The WebSockets the pod browser's pings came on, in order. */
  const pingSockets = () => browser.commands.flatMap((method, i) => (method === 'FakePod.ping' ? [browser.commandSockets[i]] : []));

  it("a pool member connects before it is ready, and the handler's connect gets that connection", async () => {
    const { printed, socketsWhenReady, commandsWhenReady } = await runMember(`import CDP from 'chrome-remote-interface';
const client = await CDP({ target: '${browser.wsEndpoint}' });
await client.send('FakePod.ping', { text: 'handler' });
console.log(JSON.stringify({ domains: client.protocol.domains.map((d) => d.domain), parameters: Object.keys(client['FakePod.ping'].parameters) }));
await client.close();
`);
    // Three warm-up connects, each closed, then the standby: the handler's commands come on it.
    assert.deepEqual(commandsWhenReady, ['Browser.getVersion', 'Browser.getVersion', 'Browser.getVersion']);
    assert.equal(socketsWhenReady, 4);
    assert.equal(browser.sockets, 4, 'the handler opened no WebSocket of its own');
    assert.deepEqual(pingSockets(), [4]);
    // The client built from the browser's own protocol, as a connect of the handler's would be.
    assert.deepEqual(printed, { domains: ['FakePod'], parameters: ['text'] });
    assert.equal(browser.protocolRequests, 1);
  });

  it('hands the connection out once: a second connect, with the callback too, is a connection of its own', async () => {
    const { printed } = await runMember(`import CDP from 'chrome-remote-interface';
const target = '${browser.wsEndpoint}';
const first = await CDP({ target });
const second = await new Promise((resolve, reject) => CDP({ target }, resolve).on('error', reject));
await first.close();
// Closing one leaves the other working.
await second.send('FakePod.ping', { text: 'second' });
await second.close();
console.log(JSON.stringify(first === second));
`);
    assert.equal(printed, false);
    assert.equal(browser.sockets, 5);
    assert.deepEqual(pingSockets(), [5]);
  });

  it('the callback form gets the standby connection too', async () => {
    await runMember(`import CDP from 'chrome-remote-interface';
const client = await new Promise((resolve, reject) => CDP({ target: '${browser.wsEndpoint}' }, resolve).on('error', reject));
await client.send('FakePod.ping', { text: 'handler' });
await client.close();
console.log('true');
`);
    assert.equal(browser.sockets, 4);
    assert.deepEqual(pingSockets(), [4]);
  });

  it('connects asking for another browser or another client go their own way, and leave the standby for the plain one', async () => {
    const { printed } = await runMember(`import CDP from 'chrome-remote-interface';
const target = '${browser.wsEndpoint}';
const otherBrowser = await CDP({ target: '${other.wsEndpoint}' });
await otherBrowser.send('FakeOther.ping', {});
await otherBrowser.close();
// The package's own protocol, not the browser's: a client the standby is not.
const local = await CDP({ target, local: true });
const localDomains = local.protocol.domains.length;
await local.send('FakePod.ping', { text: 'local' });
await local.close();
const plain = await CDP({ target });
await plain.send('FakePod.ping', { text: 'plain' });
await plain.close();
console.log(JSON.stringify({ localDomains, plainDomains: plain.protocol.domains.length }));
`);
    const { localDomains, plainDomains } = printed as { localDomains: number; plainDomains: number };
    assert.ok(localDomains > 10, 'the local client has the package\'s protocol');
    assert.equal(plainDomains, 1);
    assert.equal(other.sockets, 1);
    // Warm-ups 1-3, the standby 4, the local client 5; the plain connect used the standby.
    assert.deepEqual(pingSockets(), [5, 4]);
  });

  it('a standby connection the browser dropped is not handed out: the handler connects anew', async () => {
    const { printed } = await runMember(
      `import CDP from 'chrome-remote-interface';
// Until every socket the browser dropped is closed.
await fetch('http://127.0.0.1:${browser.port}/dropped');
const client = await CDP({ target: '${browser.wsEndpoint}' });
await client.send('FakePod.ping', { text: 'after the drop' });
await client.close();
console.log('"connected"');
`,
      () => browser.dropSockets(),
    );
    assert.equal(printed, 'connected');
    assert.equal(browser.sockets, 5);
    assert.deepEqual(pingSockets(), [5]);
  });

  it('an unused standby connection does not keep the process alive', async () => {
    const { printed } = await runMember(`import CDP from 'chrome-remote-interface';\nconsole.log(JSON.stringify(typeof CDP));\n`);
    assert.equal(printed, 'function');
    assert.equal(browser.sockets, 4);
  });

  it('a cold pod connects once it knows the browser and that its bundle imports the client, before the import', async () => {
    // The bundle's top level runs at its import: its connect gets the connection made just before.
    const { printed } = await runCodeLoader({
      podDir: fakes.nextPodDir(),
      bundle: `import CDP from 'chrome-remote-interface';
const client = await CDP({ target: '${browser.wsEndpoint}' });
await client.send('FakePod.ping', { text: 'handler' });
await client.close();
console.log('"done"');
`,
      instructions: browserThenBundle,
      watched: browser,
    });
    assert.equal(printed, 'done');
    assert.equal(browser.sockets, 1);
    assert.deepEqual(pingSockets(), [1]);
    // One connection whether the code connects or not: it is the loader's.
    await runCodeLoader({ podDir: fakes.nextPodDir(), bundle: `import CDP from 'chrome-remote-interface';\nconsole.log('"idle"');\n`, instructions: browserThenBundle, watched: browser });
    assert.equal(browser.sockets, 2);
    assert.deepEqual(pingSockets(), [1]);
  });
});
