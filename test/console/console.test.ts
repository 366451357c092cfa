// The web console at /ui (docs/console.md) in real Chromium against a real `serve`: the test
// publishes and invokes Functions, then checks that each page shows their data as the API gives it,
// that the status filter filters, that the key is asked once per browser session, that the player
// plays a recording, the live view of a running invocation, and that no page logs an error. The
// static route itself: headers, content types, caching, and no way out of its files.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { startPageServer, type PageServer } from '../support/http-fixtures.js';
import { startHoldServer, type HoldServer } from '../support/hold-server.js';
import { invokeAndWait, publish, waitInvocation, type InvocationResult } from '../support/publish.js';

const PROJECT = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';

defineFn('page-title', async (ctx, params: { url: string }) => {
  console.log('visiting', params.url);
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  const context = browser.contexts()[0] ?? (await browser.newContext());
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(params.url);
  return { title: await page.title() };
});

defineFn('always-fails', async () => {
  console.error('about to fail');
  throw new Error('the widget could not be found');
});

defineFn('hold', async (_ctx, params: { url: string }) => (await fetch(params.url)).text());
`;

// The recording and live view routes (issue 14 items 1 and 2) are merged separately: until then
// they answer 404, which Chromium logs as a failed resource load. Those, and only those, are expected.
const AWAITED_ROUTE = /\/v1\/sessions\/[0-9a-f-]{36}\/(replays|recording\/downloads|debug)$/;

interface Opened {
  page: Page;
  errors: string[];
}

describe('web console (/ui) in Chromium', function () {
  this.timeout(600_000);
  let svc: TestService;
  let pages: PageServer;
  let browser: Browser;
  let context: BrowserContext;
  /** A tab signed in once (sessionStorage is per tab): the page tests navigate it. */
  let tab: Opened;
  let functionIds: Record<string, string>;
  let buildId: string;
  let completed: InvocationResult;
  let failed: InvocationResult;
  const contexts: BrowserContext[] = [];

  before(async () => {
    svc = await startTestService();
    // Another site (another origin) that tries to frame the console.
    pages = await startPageServer({ '/framer': `<!doctype html><title>framer</title><iframe src="${svc.url}/ui/"></iframe>` });
    const build = await publish(svc, writeProject({ 'index.ts': PROJECT }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    buildId = build.id;
    functionIds = Object.fromEntries(build.builtFunctions!.map((f) => [f.name, f.id]));
    completed = await invokeAndWait(svc, functionIds['page-title'], { params: { url: `${pages.url}/hello` } });
    assert.equal(completed.status, 'COMPLETED', JSON.stringify(completed.cause));
    failed = await invokeAndWait(svc, functionIds['always-fails'], {});
    assert.equal(failed.status, 'FAILED');
    browser = await chromium.launch({ executablePath: process.env.BROWSERFN_CHROMIUM_PATH || '/usr/bin/chromium' });
    context = await newContext();
    tab = await open(context);
    await enterKey(tab.page, svc.apiKey);
    await tab.page.getByRole('heading', { name: 'Functions', level: 1 }).waitFor();
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await svc?.stop();
    await pages?.close();
  });

  async function newContext(): Promise<BrowserContext> {
    const created = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(created);
    return created;
  }

  /** A new tab of `ctx` that records console errors and uncaught exceptions. */
  async function open(ctx: BrowserContext, hash = ''): Promise<Opened> {
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(`pageerror: ${err.stack ?? err.message}`));
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      const awaited = msg.text().startsWith('Failed to load resource: the server responded with a status of 404') && AWAITED_ROUTE.test(msg.location().url);
      if (!awaited) errors.push(`console error: ${msg.text()} (${msg.location().url})`);
    });
    await page.goto(`${svc.url}/ui/${hash}`);
    return { page, errors };
  }

  async function enterKey(page: Page, key: string): Promise<void> {
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Open the console' }).click();
  }

  /** Navigates the signed-in tab to a page of the console, through another site first, so it loads afresh. */
  async function openSignedIn(hash: string): Promise<Opened> {
    await tab.page.goto('about:blank');
    tab.errors.length = 0;
    await tab.page.goto(`${svc.url}/ui/${hash}`);
    return tab;
  }

  const text = (page: Page) => page.locator('main').innerText();

  it('asks for the key once: it survives navigation and reloads in the browser session, not a new one', async () => {
    const { page, errors } = await open(await newContext());
    await page.getByLabel('API key').waitFor();
    await enterKey(page, 'not-the-key');
    await page.getByText('That key is not valid.').waitFor();
    await enterKey(page, svc.apiKey);
    await page.getByRole('heading', { name: 'Functions', level: 1 }).waitFor();

    await page.getByRole('link', { name: 'Builds' }).click();
    await page.getByRole('heading', { name: 'Builds', level: 1 }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Builds', level: 1 }).waitFor();
    await page.goto(`${pages.url}/hello`);
    await page.goto(`${svc.url}/ui/#/invocations`);
    await page.getByRole('heading', { name: 'Invocations', level: 1 }).waitFor();
    assert.equal(await page.getByLabel('API key').count(), 0, 'not asked again after reloads and another site');

    const stored = await page.evaluate(() => ({ session: sessionStorage.length, local: localStorage.length, cookie: document.cookie }));
    assert.deepEqual(stored, { session: 1, local: 0, cookie: '' }, 'the key is kept in sessionStorage only');

    const fresh = await open(await newContext(), '#/functions');
    await fresh.page.getByLabel('API key').waitFor();
    assert.equal(await fresh.page.getByRole('heading', { name: 'Functions', level: 1 }).count(), 0, 'a new browser session is asked for the key');
    // The wrong key's check was refused, which Chromium logs as a failed load: that one is expected.
    const refused = errors.filter((e) => /status of 401 .*\/v1\/functions\?limit=1\)$/.test(e));
    assert.equal(refused.length, 1, errors.join('\n'));
    assert.deepEqual([...errors.filter((e) => !refused.includes(e)), ...fresh.errors], []);
  });

  it('lists the Functions and shows one with its versions, as the API has them', async () => {
    const { page, errors } = await openSignedIn('#/functions');
    await page.getByRole('heading', { name: 'Functions', level: 1 }).waitFor();
    for (const name of Object.keys(functionIds)) await page.getByRole('link', { name, exact: true }).waitFor();

    await page.getByRole('link', { name: 'page-title', exact: true }).click();
    await page.getByRole('heading', { name: 'page-title', level: 1 }).waitFor();
    const { body: versions } = await svc.request('GET', `/v1/functions/${functionIds['page-title']}/versions`);
    const shown = await text(page);
    assert.ok(shown.includes(functionIds['page-title']), 'the Function ID');
    for (const v of versions.results) {
      assert.ok(shown.includes(v.id), `version ${v.id}`);
      assert.ok(shown.includes(v.functionBuildId), 'the build of the version');
    }
    assert.deepEqual(errors, []);
  });

  it('lists the builds and shows one with its log', async () => {
    const { page, errors } = await openSignedIn('#/builds');
    await page.getByRole('link', { name: buildId }).click();
    await page.getByRole('heading', { name: 'Log' }).waitFor();
    const { body: logs } = await svc.request('GET', `/v1/functions/builds/${buildId}/logs`);
    assert.ok(logs.total > 0);
    const shown = await page.getByRole('list', { name: 'Build log' }).innerText();
    for (const line of logs.logs) assert.ok(shown.includes(line.message), `build log line ${line.message}`);
    const built = await page.getByRole('table').innerText();
    for (const name of Object.keys(functionIds)) assert.ok(built.includes(name), `built Function ${name}`);
    assert.deepEqual(errors, []);
  });

  it('lists invocations and filters them by status', async () => {
    const listed = await svc.request('GET', '/v1/functions/invocations?status=FAILED');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((i: { id: string }) => i.id), [failed.id]);
    assert.equal(listed.body.total, 1);
    assert.ok(!('params' in listed.body.data[0]) && !('results' in listed.body.data[0]), 'list items leave out params and results');
    assert.equal((await svc.request('GET', '/v1/functions/invocations?status=DONE')).status, 400);
    assert.equal((await svc.request('GET', '/v1/functions/invocations', undefined, { 'x-svc-api-key': 'other-key' })).body.total, 0, "another project's are not listed");

    const { page, errors } = await openSignedIn('#/invocations');
    const rows = page.locator('main tbody tr');
    await page.getByRole('link', { name: completed.id }).waitFor();
    await page.getByRole('link', { name: failed.id }).waitFor();

    await page.getByLabel('Status').selectOption('FAILED');
    await page.waitForURL(/status=FAILED/);
    // The table is rendered again for the new filter: the old row goes before the new one comes.
    await page.getByRole('link', { name: completed.id }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: failed.id }).waitFor();
    assert.deepEqual(await rows.locator('td:first-child').allInnerTexts(), [failed.id]);

    await page.getByLabel('Status').selectOption('COMPLETED');
    await page.getByRole('link', { name: failed.id }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: completed.id }).waitFor();
    assert.deepEqual(await rows.locator('td:first-child').allInnerTexts(), [completed.id]);
    await page.reload();
    await page.getByRole('link', { name: completed.id }).waitFor();
    assert.equal(await page.getByLabel('Status').inputValue(), 'COMPLETED', 'the filter is in the address');

    await page.getByLabel('Status').selectOption('RUNNING');
    await page.getByText('No RUNNING invocations.').waitFor();

    await page.goto(`${svc.url}/ui/#/functions/${functionIds['always-fails']}`);
    await page.getByRole('link', { name: 'Invocations of always-fails' }).click();
    await page.getByRole('link', { name: failed.id }).waitFor();
    assert.deepEqual(await rows.locator('td:first-child').allInnerTexts(), [failed.id], 'one Function\'s invocations');
    assert.deepEqual(errors, []);
  });

  it("shows a completed invocation's results, logs, session timeline and network waterfall", async () => {
    const { page, errors } = await openSignedIn(`#/invocations/${completed.id}`);
    await page.getByRole('heading', { name: 'Network' }).waitFor();
    const shown = await text(page);
    assert.match(shown, /COMPLETED/);
    assert.ok(shown.includes('page-title'), 'the Function name');
    const results = await page.locator('section', { has: page.getByRole('heading', { name: 'Results' }) }).locator('pre').innerText();
    assert.deepEqual(JSON.parse(results), completed.results);

    const { body: logs } = await svc.request('GET', `/v1/functions/invocations/${completed.id}/logs`);
    const handlerLogs = await page.getByRole('list', { name: 'Handler logs' }).innerText();
    for (const line of logs.logs) assert.ok(handlerLogs.includes(line.message), `handler log line ${line.message}`);

    // The page the handler visited logged a line and was loaded over the network: both recorded.
    const timeline = await page.locator('.timeline').innerText();
    assert.ok(timeline.includes('page script ran'), `console line in the timeline: ${timeline}`);
    assert.ok(timeline.includes(`GET ${pages.url}/hello`), 'the request in the timeline');
    await page.getByLabel('Show').selectOption('console');
    const consoleOnly = await page.locator('.timeline tbody').innerText();
    assert.ok(consoleOnly.includes('page script ran') && !consoleOnly.includes(`GET ${pages.url}/hello`), `console lines only: ${consoleOnly}`);
    const request = page.locator('.waterfall tr.request', { hasText: `${pages.url}/hello` });
    await request.waitFor();
    assert.match(await request.innerText(), /GET\s+200/);
    const bar = await request.locator('.bar').boundingBox();
    assert.ok(bar && bar.width > 0, 'the request has a bar in the waterfall');

    const replays = await svc.request('GET', `/v1/sessions/${completed.sessionId}/replays`);
    if (replays.status === 404) await page.getByText('No recording for this session.').waitFor();
    assert.deepEqual(errors, []);
  });

  it("shows a failed invocation's cause and its error log", async () => {
    const { page, errors } = await openSignedIn(`#/invocations/${failed.id}`);
    await page.getByRole('heading', { name: 'Network' }).waitFor();
    const shown = await text(page);
    assert.match(shown, /FAILED/);
    assert.ok(shown.includes(failed.cause!.code) && shown.includes(failed.cause!.message!), 'the cause');
    assert.ok((await page.getByRole('list', { name: 'Handler logs' }).innerText()).includes('about to fail'));
    assert.deepEqual(errors, []);
  });

  it('plays the recording of a session', async function () {
    const replays = await svc.request('GET', `/v1/sessions/${completed.sessionId}/replays`);
    if (replays.status === 404) {
      console.warn('\n    !!! SKIPPED: GET /v1/sessions/{id}/replays answers 404 — the recording routes (issue 14 item 1) are not in this branch; this test runs once they are.\n');
      this.skip();
    }
    assert.equal(replays.status, 200, JSON.stringify(replays.body));
    assert.ok(replays.body.pages.length > 0, `the session was recorded: ${JSON.stringify(replays.body)}`);
    const { page, errors } = await openSignedIn(`#/invocations/${completed.id}`);
    const video = page.locator('video');
    // The player shows the video once every page's MP4 is listed as ready, asking again for up to 120 s.
    await video.waitFor({ timeout: 120_000 }).catch(async (err: Error) => {
      throw new Error(`no <video>; the recording section shows "${await page.locator('.player').innerText().catch(() => '?')}" (${err.message.split('\n')[0]})`);
    });
    await waitFor('the video to have data', async () => ((await video.evaluate((v: HTMLVideoElement) => v.readyState)) >= 2 ? true : undefined), 120_000, 200);
    assert.ok((await video.evaluate((v: HTMLVideoElement) => v.duration)) > 0, 'the video has a duration');
    // A short recording can reach its end before play() settles, which rejects that promise; what counts is the time it played.
    await video.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      void v.play().catch(() => undefined);
    });
    const playedSeconds = (v: HTMLVideoElement): number => (v.played.length > 0 ? v.played.end(v.played.length - 1) : 0);
    await waitFor('the video to play', async () => ((await video.evaluate(playedSeconds)) > 0 ? true : undefined), 60_000, 100);
    assert.deepEqual(errors, []);
  });

  describe('a running invocation', () => {
    let hold: HoldServer;
    before(async () => (hold = await startHoldServer()));
    after(async () => {
      hold.release();
      await hold.close();
    });

    it('shows its live view (or says it is unavailable) and follows it to its end', async () => {
      const created = await svc.request('POST', `/v1/functions/${functionIds.hold}/invoke`, { params: { url: hold.url } });
      assert.equal(created.status, 202);
      await hold.arrived(1);
      const { page, errors } = await openSignedIn(`#/invocations/${created.body.id}`);
      await page.getByRole('heading', { name: 'Live view' }).waitFor();
      const debug = await svc.request('GET', `/v1/sessions/${created.body.sessionId}/debug`);
      // What the framed DevTools frontend loads and logs is the live view's own (its suite tests it), not the console's.
      const framed = debug.status === 200 ? `${svc.url}${new URL('.', debug.body.debuggerFullscreenUrl).pathname}` : undefined;
      if (debug.status === 404) {
        await page.getByText('Live view unavailable.').waitFor();
      } else {
        assert.equal(debug.status, 200, JSON.stringify(debug.body));
        const frame = page.locator('.live-view iframe');
        await frame.waitFor();
        assert.equal(new URL((await frame.getAttribute('src'))!).pathname, new URL(debug.body.debuggerFullscreenUrl).pathname);
      }
      hold.release();
      await waitInvocation(svc, created.body.id);
      await page.getByRole('heading', { name: 'Results' }).locator('xpath=..').getByText('released').waitFor({ timeout: 60_000 });
      assert.match(await text(page), /COMPLETED/);
      assert.deepEqual(
        errors.filter((e) => !framed || !e.includes(framed)),
        [],
      );
    });
  });

  describe('the static route', () => {
    const raw = (path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> =>
      new Promise((resolve, reject) => {
        const { hostname, port } = new URL(svc.url);
        // node:http sends the path as written: no client-side normalisation of dots or escapes.
        const req = httpRequest({ host: hostname, port, path, method: 'GET' }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        });
        req.on('error', reject);
        req.end();
      });

    it('serves the shell without the key, with a strict CSP, never cached; no inline script, nothing from elsewhere', async () => {
      const redirect = await raw('/ui');
      assert.equal(redirect.status, 302);
      assert.equal(redirect.headers.location, '/ui/');
      const shell = await raw('/ui/');
      assert.equal(shell.status, 200);
      assert.equal(shell.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(shell.headers['cache-control'], 'no-store');
      assert.equal(shell.headers['x-frame-options'], 'DENY');
      assert.equal(shell.headers['x-content-type-options'], 'nosniff');
      const csp = String(shell.headers['content-security-policy']);
      for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"]) assert.ok(csp.includes(directive), directive);
      assert.ok(!/unsafe-inline|unsafe-eval|https?:/.test(csp), csp);
      assert.ok(!/<script(?![^>]*\bsrc=)[^>]*>/.test(shell.body), 'no inline script');
      assert.ok(!/(src|href)="(https?:)?\/\//.test(shell.body), 'no external resource');
      const unauthenticated = await raw('/v1/functions');
      assert.equal(unauthenticated.status, 401, 'the data still needs the key');
    });

    it('serves the modules by content hash with their type, cached for good', async () => {
      const shell = await raw('/ui/');
      const main = /src="(\/ui\/assets\/[0-9a-f]+\/)main\.js"/.exec(shell.body);
      assert.ok(main, shell.body);
      const base = main[1];
      const js = await raw(`${base}main.js`);
      assert.equal(js.status, 200);
      assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.ok(String(js.headers['content-security-policy']).includes("default-src 'none'"));
      assert.match(js.body, /from '\.\/api\.js'/, 'modules import each other relative to the hashed folder');
      const map = await raw(`${base}main.js.map`);
      assert.equal(map.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal((await raw(`/ui/assets/0000000000000000/main.js`)).status, 404, 'another hash');
    });

    it('cannot be made to serve anything but its own files', async () => {
      const base = /src="(\/ui\/assets\/[0-9a-f]+\/)main\.js"/.exec((await raw('/ui/')).body)![1];
      const attempts = [
        `${base}../../../package.json`,
        `${base}..%2f..%2f..%2f..%2fpackage.json`,
        `${base}%2e%2e%2f%2e%2e%2fapi%2fapp.js`,
        `${base}..%5c..%5capi%5capp.js`,
        `${base}....//....//package.json`,
        `${base}%2fetc%2fpasswd`,
        `${base}main.d.ts`,
        `${base}main.ts`,
        `${base}.%2fmain.js`,
        `${base}main.js%00.map`,
        `/ui/assets/..%2f..%2f..%2fpackage.json/main.js`,
        `/ui/..%2f..%2fpackage.json`,
        `/ui/%2e%2e/v1/functions`,
        `/ui/assets/`,
      ];
      for (const path of attempts) {
        const res = await raw(path);
        assert.ok(res.status === 404 || res.status === 400, `${path}: ${res.status}`);
        assert.match(String(res.headers['content-type']), /^application\/json/, path);
        assert.ok(!/"name":\s*"browserfn"|root:|import /.test(res.body), `${path} leaked a file: ${res.body.slice(0, 200)}`);
      }
    });

    it('cannot be framed by another site', async () => {
      const framer = await context.newPage();
      // The load event waits for the frame's own load, refused or not.
      await framer.goto(`${pages.url}/framer`, { waitUntil: 'load' });
      const frame = framer.frames()[1];
      assert.ok(frame, 'the frame exists');
      assert.equal(await frame.locator('#api-key, main').count(), 0, 'the console did not render in the frame');
      await framer.close();
    });
  });
});
