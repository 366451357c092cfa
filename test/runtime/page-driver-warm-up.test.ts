// A pool member tries Playwright and Puppeteer out in its own browser before it is ready, and the
// browser it then hands over is as if no client had met it: one blank page, new, with no world of
// another client in it, and no browser context left behind. Real Chromium, the real packages.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import CDP from 'chrome-remote-interface';
import * as playwright from 'playwright-core';
import * as puppeteer from 'puppeteer-core';
import { LocalChromiumProvider } from '../../src/runtime/chromium/local-chromium-provider.js';
import type { LeasedBrowser } from '../../src/runtime/chromium/browser-provider.js';
import { warmUpPageDrivers } from '../../src/runtime/sandbox/page-driver-warm-up.js';
import { defaultChromiumPath } from '../../src/config/chromium-build.js';

const CHROMIUM = process.env.BROWSERFN_CHROMIUM_PATH || defaultChromiumPath();
const BOTH = [
  { name: 'playwright-core' as const, module: playwright },
  { name: 'puppeteer-core' as const, module: puppeteer },
];

interface BrowserState {
  pages: { targetId: string; url: string }[];
  contexts: string[];
  /** The names of the JavaScript worlds of the first page ('' is its main world). */
  worlds: string[];
}

describe('page driver warm-up in a pool member', function () {
  this.timeout(60_000);
  let workDir: string;
  let browser: LeasedBrowser;

  beforeEach(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'browserfn-warm-up-'));
    browser = await new LocalChromiumProvider({ executablePath: CHROMIUM }).acquire({ workDir });
  });
  afterEach(async () => {
    await browser.release();
    rmSync(workDir, { recursive: true, force: true });
  });

  async function stateOf(wsEndpoint: string): Promise<BrowserState> {
    const client = await CDP({ target: wsEndpoint, local: true });
    try {
      const pages = (await client.Target.getTargets()).targetInfos.filter((t) => t.type === 'page').map(({ targetId, url }) => ({ targetId, url }));
      const { browserContextIds } = await client.Target.getBrowserContexts();
      const { sessionId } = await client.Target.attachToTarget({ targetId: pages[0].targetId, flatten: true });
      const worlds: string[] = [];
      (client as unknown as NodeJS.EventEmitter).on(`Runtime.executionContextCreated.${sessionId}`, ({ context }: { context: { name: string } }) => worlds.push(context.name));
      // Runtime.enable reports every existing world before it answers.
      await client.send('Runtime.enable', undefined, sessionId);
      return { pages, contexts: browserContextIds, worlds };
    } finally {
      await client.close();
    }
  }

  it('connects with both, then hands over a new blank page with its main world only and no context left', async () => {
    const before = await stateOf(browser.wsEndpoint);
    assert.equal(before.pages.length, 1);
    const warmedUp = await warmUpPageDrivers(BOTH, browser.wsEndpoint, () => false);
    assert.deepEqual(warmedUp, ['playwright-core', 'puppeteer-core']);
    const after = await stateOf(browser.wsEndpoint);
    assert.equal(after.pages.length, 1, JSON.stringify(after.pages));
    assert.notEqual(after.pages[0].targetId, before.pages[0].targetId, 'the page the clients met is gone');
    assert.equal(after.pages[0].url, 'about:blank');
    assert.deepEqual(after.contexts, [], 'the warm-up contexts are closed');
    assert.deepEqual(after.worlds, [''], 'no client left a world in the page');
  });

  it('would leave Playwright\'s world in the page it met: what the replacement is for', async () => {
    const connected = await playwright.chromium.connectOverCDP(browser.wsEndpoint);
    await connected.contexts()[0].pages()[0].evaluate('1 + 1');
    await connected.close();
    const { worlds } = await stateOf(browser.wsEndpoint);
    assert.ok(worlds.some((name) => name.startsWith('__playwright_utility_world')), JSON.stringify(worlds));
  });

  it('tries nothing once the handler\'s code has come, and leaves the page as it was', async () => {
    const before = await stateOf(browser.wsEndpoint);
    assert.deepEqual(await warmUpPageDrivers(BOTH, browser.wsEndpoint, () => true), []);
    assert.deepEqual((await stateOf(browser.wsEndpoint)).pages, before.pages);
  });

  it('stops after the driver under way when the code comes during the warm-up, and still replaces the page', async () => {
    let claimed = false;
    const drivers = BOTH.map((driver, index) => (index === 0 ? { ...driver, module: claimedWhileConnecting(playwright, () => (claimed = true)) } : driver));
    const before = await stateOf(browser.wsEndpoint);
    assert.deepEqual(await warmUpPageDrivers(drivers, browser.wsEndpoint, () => claimed), ['playwright-core']);
    const after = await stateOf(browser.wsEndpoint);
    assert.equal(after.pages.length, 1);
    assert.notEqual(after.pages[0].targetId, before.pages[0].targetId);
  });

  it('says which failed: a module without the shape it knows is left out, and nothing throws', async () => {
    const warmedUp = await warmUpPageDrivers([{ name: 'playwright-core', module: {} }, BOTH[1]], browser.wsEndpoint, () => false);
    assert.deepEqual(warmedUp, ['puppeteer-core']);
    assert.equal((await stateOf(browser.wsEndpoint)).pages.length, 1);
  });
});

/** Playwright, with the handler's code arriving while it connects. */
function claimedWhileConnecting(module: typeof playwright, claim: () => void): unknown {
  return {
    chromium: {
      connectOverCDP: (endpoint: string, options: { timeout: number }) => {
        claim();
        return module.chromium.connectOverCDP(endpoint, options);
      },
    },
  };
}
