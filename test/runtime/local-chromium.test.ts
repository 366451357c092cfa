// The browser a pod gets: a fresh Chromium whose first page is ready, and nothing else of the
// desktop browser's UI running beside it (the omnibox popup's WebUI renderer cost about 1.4 s of
// CPU in the second after every start, competing with the invocation it was started for), and
// nothing over its first page that other pages lack. Both builds: the headless shell sessions run by
// default and the full browser an operator may choose (src/config/chromium-build.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { spawn } from 'node:child_process';
import CDP from 'chrome-remote-interface';
import { LocalChromiumProvider } from '../../src/runtime/chromium/local-chromium-provider.js';
import { chromiumBuildOf, defaultChromiumPath } from '../../src/config/chromium-build.js';
import { processLives } from '../../src/runtime/sandbox/process-group.js';
import { assertNoProcessesUnder } from '../support/processes.js';

const BROWSERS = [...new Set([process.env.BROWSERFN_CHROMIUM_PATH || defaultChromiumPath(), '/usr/bin/chromium'])];

/** A pod browser launched with `viewport`, and a client connected to it, for `use`; both gone after. */
async function withBrowser(CHROMIUM: string, viewport: { width: number; height: number }, use: (client: CDP.Client) => Promise<void>): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'browserfn-chromium-'));
  const browser = await new LocalChromiumProvider({ executablePath: CHROMIUM }).acquire({ workDir, viewport });
  try {
    const client = await CDP({ target: browser.wsEndpoint });
    try {
      await use(client);
    } finally {
      await client.close();
    }
  } finally {
    await browser.release();
    rmSync(workDir, { recursive: true, force: true });
  }
}

for (const CHROMIUM of BROWSERS) describe(`a pod browser (local Chromium, ${chromiumBuildOf(CHROMIUM)})`, function () {
  this.timeout(60_000);
  const build = chromiumBuildOf(CHROMIUM);

  it('starts with its blank page only: no browser UI targets and no renderer for them', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'browserfn-chromium-'));
    const browser = await new LocalChromiumProvider({ executablePath: CHROMIUM }).acquire({ workDir });
    try {
      const client = await CDP({ target: browser.wsEndpoint });
      try {
        const { targetInfos } = await client.Target.getTargets();
        const page = targetInfos.find((t) => t.type === 'page');
        assert.equal(page?.url, 'about:blank');
        const { sessionId } = await client.Target.attachToTarget({ targetId: page.targetId, flatten: true });
        const evaluated = (await client.send('Runtime.evaluate', { expression: '1+1', returnByValue: true }, sessionId)) as { result: { value: number } };
        assert.equal(evaluated.result.value, 2);
        // By now the desktop UI's WebUI targets would exist: without the flags they are there before the first CDP connect.
        const after = (await client.Target.getTargets()).targetInfos;
        assert.deepEqual(after.filter((t) => t.type !== 'page').map((t) => `${t.type} ${t.url}`), []);
        const { processInfo } = (await client.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string }[] };
        assert.ok(processInfo.filter((p) => p.type === 'renderer').length <= 2, JSON.stringify(processInfo));
      } finally {
        await client.close();
      }
    } finally {
      await browser.release();
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it('gives every page the viewport asked for, in the first window and in new ones, and its first window a screen as large as itself', async () => {
    await withBrowser(CHROMIUM, { width: 1366, height: 900 }, async (client) => {
      const seenBy = async (targetId: string) => {
        const { sessionId } = await client.Target.attachToTarget({ targetId, flatten: true });
        const expression = 'JSON.stringify({ inner: [innerWidth, innerHeight], screen: [screen.width, screen.height], available: [screen.availWidth, screen.availHeight], outer: [outerWidth, outerHeight] })';
        const evaluated = (await client.send('Runtime.evaluate', { expression, returnByValue: true }, sessionId)) as { result: { value: string } };
        return JSON.parse(evaluated.result.value) as { inner: number[]; screen: number[]; available: number[]; outer: number[] };
      };
      const first = (await client.Target.getTargets()).targetInfos.find((t) => t.type === 'page')!;
      const seen = await seenBy(first.targetId);
      assert.deepEqual(seen.inner, [1366, 900], 'the page is as large as asked');
      if (build === 'chromium') assert.ok(seen.outer[1]! > 900, `the window is larger by its frame: ${seen.outer}`);
      else assert.deepEqual(seen.outer, seen.inner, 'the headless shell\'s window is its page');
      assert.deepEqual(seen.screen, seen.outer, 'the window fills the screen');
      assert.deepEqual(seen.available, seen.screen);
      const { targetId: tab } = await client.Target.createTarget({ url: 'about:blank' });
      const { targetId: window } = await client.Target.createTarget({ url: 'about:blank', newWindow: true });
      const { browserContextId } = await client.Target.createBrowserContext();
      const { targetId: otherContext } = await client.Target.createTarget({ url: 'about:blank', browserContextId });
      for (const [name, targetId] of Object.entries({ tab, window, otherContext })) {
        assert.deepEqual((await seenBy(targetId)).inner, [1366, 900], `${name}: the page is as large as asked`);
      }
    });
  });

  it('gives its first page the viewport of any page opened later: no infobar over the first one', async () => {
    await withBrowser(CHROMIUM, { width: 1024, height: 700 }, async (client) => {
      const viewportOf = async (targetId: string) => {
        const { sessionId } = await client.Target.attachToTarget({ targetId, flatten: true });
        const evaluated = (await client.send('Runtime.evaluate', { expression: '[innerWidth, innerHeight]', returnByValue: true }, sessionId)) as { result: { value: number[] } };
        return evaluated.result.value;
      };
      const first = (await client.Target.getTargets()).targetInfos.find((t) => t.type === 'page')!;
      const firstViewport = await viewportOf(first.targetId);
      const { targetId: opened } = await client.Target.createTarget({ url: 'about:blank' });
      assert.deepEqual(firstViewport, [1024, 700]);
      assert.deepEqual(firstViewport, await viewportOf(opened));
    });
  });

  // A session that ends while its browser still starts aborts the launch (a pool member stopped, a
  // pod terminated): nothing of it may be left, not even the launch's timer, which kept the agent's
  // process alive until the launch timeout.
  it('an aborted launch kills what it started and keeps nothing of the process alive', async function () {
    this.timeout(30_000);
    const workDir = mkdtempSync(join(tmpdir(), 'browserfn-chromium-'));
    const provider = new URL('../../src/runtime/chromium/local-chromium-provider.js', import.meta.url).href;
    const script = `
      const { LocalChromiumProvider } = await import(${JSON.stringify(provider)});
      const abort = new AbortController();
      const launch = new LocalChromiumProvider({ executablePath: ${JSON.stringify(CHROMIUM)}, launchTimeoutMs: 120000 }).acquire({ workDir: ${JSON.stringify(workDir)}, signal: abort.signal });
      abort.abort();
      await launch.then(() => process.exit(2), (error) => console.log(error.message));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      // Exits on its own, long before the launch timeout: nothing of the launch holds it.
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 0);
      assert.match(output, /launch aborted/);
      await assertNoProcessesUnder(workDir, 'the aborted launch');
    } finally {
      child.kill('SIGKILL');
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  // A handler whose browser was killed fails on a reset connection; the agent then asks whether the
  // browser lives to decide whose fault it was. The reset comes while the kernel still frees the
  // browser's memory, before it turns zombie: it must already count as gone.
  it('a SIGKILLed browser no longer lives once a client finds its endpoint failing', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'browserfn-chromium-'));
    const browser = await new LocalChromiumProvider({ executablePath: CHROMIUM }).acquire({ workDir });
    try {
      assert.ok(browser.pid !== undefined && processLives(browser.pid));
      const { port } = new URL(browser.wsEndpoint);
      process.kill(browser.pid, 'SIGKILL');
      let failure: string | undefined;
      while (failure === undefined) failure = await versionRequestFailure(Number(port));
      assert.equal(processLives(browser.pid), false, `the endpoint failed with ${failure}, yet the browser counts as living`);
      assert.equal(await browser.exited, 'was killed by SIGKILL');
    } finally {
      await browser.release();
      rmSync(workDir, { recursive: true, force: true });
    }
  });
});

/** Asks the DevTools endpoint for its version: undefined when it answers, else how the request failed. */
function versionRequestFailure(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('GET /json/version HTTP/1.0\r\n\r\n'));
    socket.once('data', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    socket.once('close', () => resolve('closed without an answer'));
  });
}
