// A cold pod's browser is launched before its agent has loaded the rest of its code: the provider
// launches when it is made, hands that browser to the first request for it, and leaves nothing
// running that nobody asked for.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import CDP from 'chrome-remote-interface';
import { HeadStartProvider } from '../../src/runtime/chromium/head-start-provider.js';
import { LocalChromiumProvider } from '../../src/runtime/chromium/local-chromium-provider.js';
import { assertNoProcessesUnder, processesUnder } from '../support/processes.js';
import { waitFor } from '../support/service.js';

const CHROMIUM = process.env.BROWSERFN_CHROMIUM_PATH ?? '/usr/bin/chromium';
const local = () => new LocalChromiumProvider({ executablePath: CHROMIUM });

describe('a browser launched ahead (HeadStartProvider)', function () {
  this.timeout(60_000);
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'browserfn-head-start-'));
  });

  afterEach(async () => {
    await assertNoProcessesUnder(root, 'the test');
    rmSync(root, { recursive: true, force: true });
  });

  it('launches when it is made, and the first request for that browser gets it', async () => {
    const workDir = join(root, 'browser');
    const provider = new HeadStartProvider(local(), { workDir, viewport: { width: 800, height: 600 } });
    // Running before anyone asked for it.
    const launched = await waitFor('Chromium launched ahead', async () => processesUnder(workDir).find((p) => p.cmdline.includes(`--user-data-dir=${join(workDir, 'profile')}`)));
    const browser = await provider.acquire({ workDir, viewport: { width: 800, height: 600 } });
    try {
      assert.equal(browser.pid, launched.pid);
      const client = await CDP({ target: browser.wsEndpoint });
      try {
        assert.match(((await client.send('Browser.getVersion')) as { product: string }).product, /Chrome/);
      } finally {
        await client.close();
      }
    } finally {
      await browser.release();
    }
  });

  it('launches anew for a request that differs, and ends the browser launched ahead', async () => {
    const ahead = join(root, 'ahead');
    const provider = new HeadStartProvider(local(), { workDir: ahead });
    await waitFor('Chromium launched ahead', async () => (processesUnder(ahead).length > 0 ? true : undefined));
    const asked = join(root, 'asked');
    const browser = await provider.acquire({ workDir: asked, viewport: { width: 640, height: 480 } });
    try {
      assert.ok(processesUnder(asked).some((p) => p.pid === browser.pid), 'the browser runs in the folder it was asked for');
      await assertNoProcessesUnder(ahead, 'a request for another browser');
    } finally {
      await browser.release();
    }
  });

  it('gives up the launch under way when the request is aborted', async () => {
    const workDir = join(root, 'browser');
    const provider = new HeadStartProvider(local(), { workDir });
    const abort = new AbortController();
    const acquired = provider.acquire({ workDir, signal: abort.signal });
    abort.abort();
    await assert.rejects(acquired, /launch aborted/);
    await assertNoProcessesUnder(workDir, 'the aborted launch');
  });

  it('hands its browser out once: a second request gets a browser of its own', async () => {
    const workDir = join(root, 'browser');
    const provider = new HeadStartProvider(local(), { workDir });
    const first = await provider.acquire({ workDir });
    const second = await provider.acquire({ workDir: join(root, 'second') });
    try {
      assert.notEqual(first.pid, second.pid);
    } finally {
      await Promise.all([first.release(), second.release()]);
    }
  });
});
