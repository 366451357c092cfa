// A pool member's handler drives its browser with Playwright or Puppeteer, whose first connect in a
// process runs their code for the first time: V8 compiles it as it goes. A Playwright handler's
// first `connectOverCDP` in a member took 41-84 ms, a second one in the same handler 17-24 ms. So a
// member that preloads one of them connects with it before it is ready, opens a page in a browser
// context of its own, evaluates in it and closes that context.
// Both clients attach to every page already open when they connect, the browser's first page too,
// and leave traces in it (Playwright an isolated world per connect). So the first page is then
// replaced by a new blank one: the page the handler gets has never met a client. The agent starts
// recording the session only after this (invocation-run.ts), so none of it is in the recording.
import { httpCall, readBody } from '../agent-common/http-call.js';

/** The runtime packages this module warms up, by their names. */
const PAGE_DRIVERS = ['playwright-core', 'puppeteer-core'] as const;
export type PageDriver = (typeof PAGE_DRIVERS)[number];
export const isPageDriver = (name: string): name is PageDriver => (PAGE_DRIVERS as readonly string[]).includes(name);

/** How long a connect (and each Puppeteer command) may take: a warm-up only saves time. */
const WARM_UP_TIMEOUT_MS = 5000;

interface DriverPage {
  evaluate(expression: string): Promise<unknown>;
}
interface DriverContext {
  newPage(): Promise<DriverPage>;
  close(): Promise<void>;
}
interface PlaywrightModule {
  chromium: {
    connectOverCDP(endpoint: string, options: { timeout: number }): Promise<{ newContext(): Promise<DriverContext>; close(): Promise<void> }>;
  };
}
interface PuppeteerModule {
  connect(options: { browserWSEndpoint: string; defaultViewport: null; protocolTimeout: number }): Promise<{
    createBrowserContext(): Promise<DriverContext>;
    disconnect(): Promise<void>;
  }>;
}

/**
 * Warms up each driver (its module as imported by the code loader) against the browser at
 * `wsEndpoint`, one after the other, stopping early once `claimed()` says the handler's code has
 * come; then replaces the browser's pages if any of them tried. Resolves to the names of those
 * that ran through; never rejects.
 */
export async function warmUpPageDrivers(drivers: { name: PageDriver; module: unknown }[], wsEndpoint: string, claimed: () => boolean): Promise<PageDriver[]> {
  const warmedUp: PageDriver[] = [];
  let tried = false;
  for (const { name, module } of drivers) {
    if (claimed()) break;
    tried = true;
    try {
      await (name === 'playwright-core' ? warmUpPlaywright(module as PlaywrightModule, wsEndpoint) : warmUpPuppeteer(module as PuppeteerModule, wsEndpoint));
      warmedUp.push(name);
    } catch {
      // Not the shape known here, or the browser refused: the handler's own connect says so if it matters.
    }
  }
  if (tried) await replacePages(wsEndpoint).catch(() => undefined);
  return warmedUp;
}

async function warmUpPlaywright(playwright: PlaywrightModule, wsEndpoint: string): Promise<void> {
  const browser = await playwright.chromium.connectOverCDP(wsEndpoint, { timeout: WARM_UP_TIMEOUT_MS });
  try {
    await exerciseAndClose(await browser.newContext());
  } finally {
    // Connected over CDP, this closes what it created and disconnects; the browser lives on.
    await browser.close();
  }
}

async function warmUpPuppeteer(puppeteer: PuppeteerModule, wsEndpoint: string): Promise<void> {
  const browser = await puppeteer.connect({ browserWSEndpoint: wsEndpoint, defaultViewport: null, protocolTimeout: WARM_UP_TIMEOUT_MS });
  try {
    await exerciseAndClose(await browser.createBrowserContext());
  } finally {
    await browser.disconnect();
  }
}

async function exerciseAndClose(context: DriverContext): Promise<void> {
  try {
    const page = await context.newPage();
    await page.evaluate('1 + 1');
  } finally {
    await context.close();
  }
}

interface ListedTarget {
  id: string;
  type: string;
}

/** How often the browser's page list is asked again while the pages closed are still in it. */
const CLOSE_POLL_MS = 10;

/**
 * Opens a new blank page over the DevTools HTTP endpoint, closes every other page, and resolves once
 * the browser lists that page alone: a close is answered before it is done, and a handler that
 * connected in between would find the closing page too.
 */
async function replacePages(wsEndpoint: string): Promise<void> {
  const { host } = new URL(wsEndpoint);
  const opened = JSON.parse(await devtoolsHttp(host, 'PUT', '/json/new?about:blank')) as ListedTarget;
  const otherPages = async () => (JSON.parse(await devtoolsHttp(host, 'GET', '/json/list')) as ListedTarget[]).filter((t) => t.type === 'page' && t.id !== opened.id);
  for (const target of await otherPages()) await devtoolsHttp(host, 'GET', `/json/close/${encodeURIComponent(target.id)}`);
  const deadline = performance.now() + WARM_UP_TIMEOUT_MS;
  while ((await otherPages()).length > 0) {
    if (performance.now() > deadline) throw new Error(`pages closed over ${host} were still listed after ${WARM_UP_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, CLOSE_POLL_MS));
  }
}

/** The body of the browser's answer; rejects unless it is a 200. */
async function devtoolsHttp(host: string, method: 'GET' | 'PUT', path: string): Promise<string> {
  const answer = await httpCall(`http://${host}${path}`, { method, timeoutMs: WARM_UP_TIMEOUT_MS });
  const body = (await readBody(answer)).toString('utf8');
  if (answer.statusCode !== 200) throw new Error(`${method} ${path} answered ${answer.statusCode}`);
  return body;
}
