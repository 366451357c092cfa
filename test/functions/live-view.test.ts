// Live view and session metrics (issue 14 items 2 and 3) against the real serve stack and Chromium:
// the unmodified @browserbasehq/sdk reads the live URLs of a running session; CDP through them
// reaches the live page (view-only refuses what acts); the DevTools frontend loads through the
// façade; tokens are bound to their session and expire; everything closes when the session ends;
// the metrics route serves Performance samples and the page load's Navigation Timing.
import assert from 'node:assert/strict';
import Browserbase from '@browserbasehq/sdk';
import { chromium } from 'playwright-core';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { startHoldServer, type HoldServer } from '../support/hold-server.js';
import { startPageServer, type PageServer } from '../support/http-fixtures.js';
import { publish, waitInvocation } from '../support/publish.js';
import { Kinds } from '../../src/cluster/objects.js';
import { watchUntil } from '../../src/cluster/watch-until.js';
import type { InvocationObject } from '../../src/schemas/resources.js';
import { cdp, LIVE_FN, pageSocketOf, refusedStatus } from '../support/live-view.js';

describe('live view and session metrics (embedded)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let hold: HoldServer;
  let pages: PageServer;
  let fnId: string;

  before(async () => {
    // Finished invocations leave the store a second after they end: metrics are then read from the archive.
    svc = await startTestService({ BROWSERFN_FINISHED_TTL_SECONDS: '1' });
    pages = await startPageServer();
    const build = await publish(svc, writeProject({ 'index.ts': LIVE_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    fnId = build.builtFunctions![0].id;
  });
  beforeEach(async () => (hold = await startHoldServer()));
  afterEach(async () => {
    hold.release();
    await hold.close();
  });
  after(async () => {
    await svc?.stop();
    await pages?.close();
  });

  async function startHeld(): Promise<{ invocationId: string; sessionId: string }> {
    const res = await svc.request('POST', `/v1/functions/${fnId}/invoke`, { params: { page: `${pages.url}/live`, hold: hold.url } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    await hold.arrived(1);
    return { invocationId: res.body.id, sessionId: res.body.sessionId };
  }

  it('serves the live URLs of a running session to the SDK, relays CDP and DevTools, and closes all when it ends', async () => {
    const { invocationId, sessionId } = await startHeld();
    const bb = new Browserbase({ apiKey: svc.apiKey, baseURL: svc.url });
    const live = await bb.sessions.debug(sessionId);
    assert.equal(typeof live.wsUrl, 'string');
    assert.match(live.debuggerUrl, /\/devtools\/inspector\.html\?ws=/);
    assert.match(live.debuggerFullscreenUrl, /\/devtools\/inspector\.html\?ws=/);
    const page = live.pages.find((p) => p.url === `${pages.url}/live`);
    assert.ok(page, `the handler's page is listed: ${JSON.stringify(live.pages)}`);
    assert.equal(page.title, 'Test page /live');
    assert.equal(typeof page.faviconUrl, 'string');

    const pageClient = await cdp(pageSocketOf(page.debuggerUrl));
    const title = await pageClient.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true });
    assert.equal(title.result.result.value, 'Test page /live');
    const browserClient = await cdp(live.wsUrl);
    const targets = await browserClient.send('Target.getTargets');
    assert.ok(targets.result.targetInfos.some((t: { targetId: string }) => t.targetId === page.id));

    const inspector = await fetch(page.debuggerUrl);
    assert.equal(inspector.status, 200);
    assert.match(inspector.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await inspector.text(), /<title>DevTools<\/title>/);
    const script = await fetch(new URL('entrypoints/inspector/inspector.js', page.debuggerUrl));
    assert.equal(script.status, 200, 'a relative asset of inspector.html loads too');
    assert.match(script.headers.get('content-type') ?? '', /javascript/);

    const running = await svc.request('GET', `/v1/sessions/${sessionId}/metrics`);
    assert.equal(running.status, 200, JSON.stringify(running.body));
    assert.equal(running.body.live, true);

    hold.release();
    assert.equal((await waitInvocation(svc, invocationId)).status, 'COMPLETED');
    await Promise.all([pageClient.closed, browserClient.closed]);
    assert.equal((await fetch(page.debuggerUrl)).status, 404, 'the token of an ended session is refused');
    assert.equal(await refusedStatus(pageSocketOf(page.debuggerUrl)), 404);
    await assert.rejects(bb.sessions.debug(sessionId), (err: { status?: number; message?: string }) => err.status === 409 && /has ended/.test(err.message ?? ''));

    const metrics = await svc.request('GET', `/v1/sessions/${sessionId}/metrics`);
    assert.equal(metrics.status, 200);
    assert.equal(metrics.body.live, false);
    assert.ok(metrics.body.samples.length > 0, 'Performance samples');
    const sample = metrics.body.samples.find((s: { pageId: string }) => s.pageId === page.id);
    assert.ok(sample, 'a sample of the handler\'s page');
    assert.equal(typeof sample.metrics.JSHeapUsedSize, 'number');
    assert.ok(sample.metrics.Nodes > 0);
    const navigation = metrics.body.navigations.find((n: { url: string }) => n.url === `${pages.url}/live`);
    assert.ok(navigation, `the page load's navigation timing: ${JSON.stringify(metrics.body.navigations)}`);
    assert.equal(navigation.pageId, page.id);
    assert.equal(navigation.timing.entryType, 'navigation');
    assert.ok(navigation.timing.loadEventEnd >= navigation.timing.domContentLoadedEventEnd);

    await waitFor('the invocation to be archived', async () => ((await svc.service.cluster.resource(Kinds.Invocation).get('default', invocationId)) ? undefined : true), 60_000, 200);
    const archived = await svc.request('GET', `/v1/sessions/${sessionId}/metrics`);
    assert.equal(archived.status, 200);
    assert.deepEqual(archived.body, metrics.body, 'the archived record serves the same metrics');
  });

  it('answers a metrics read made as soon as the session runs, once its pod has dialled in', async () => {
    const res = await svc.request('POST', `/v1/functions/${fnId}/invoke`, { params: { page: `${pages.url}/live`, hold: hold.url } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const invocations = svc.service.cluster.resource<InvocationObject>(Kinds.Invocation);
    const stored = await invocations.get('default', String(res.body.id).toLowerCase());
    assert.ok(stored);
    const { reached } = await watchUntil(invocations, stored, (inv) => inv.status?.phase === 'RUNNING', 60_000);
    assert.ok(reached, 'the invocation runs');
    // Asked before the handler has had 50 ms: the pod has not dialled its live channel yet.
    const early = await svc.request('GET', `/v1/sessions/${res.body.sessionId}/metrics`);
    assert.equal(early.status, 200, JSON.stringify(early.body));
    assert.equal(early.body.live, true);
    assert.equal(early.body.status, 'RUNNING');
    assert.ok(Array.isArray(early.body.samples));
    hold.release();
    assert.equal((await waitInvocation(svc, res.body.id)).status, 'COMPLETED');
  });

  it('opens the DevTools frontend in a browser through the façade, every file it loads found, showing the live page\'s DOM', async () => {
    const { invocationId, sessionId } = await startHeld();
    const live = await svc.request('GET', `/v1/sessions/${sessionId}/debug`);
    assert.equal(live.status, 200, JSON.stringify(live.body));
    const page = live.body.pages.find((p: { url: string }) => p.url === `${pages.url}/live`);
    const browser = await chromium.launch({ executablePath: process.env.BROWSERFN_CHROMIUM_PATH || '/usr/bin/chromium' });
    try {
      const tab = await browser.newPage();
      const failed: string[] = [];
      tab.on('response', (response) => response.status() >= 400 && failed.push(`${response.status()} ${response.url()}`));
      tab.on('requestfailed', (request) => failed.push(`${request.failure()?.errorText} ${request.url()}`));
      // The façade types each file by its name: none of the frontend's is left untyped.
      const untyped: string[] = [];
      tab.on('response', (response) => {
        if (response.url().includes('/devtools/') && response.headers()['content-type'] === 'application/octet-stream') untyped.push(response.url());
      });
      await tab.goto(page.debuggerFullscreenUrl);
      // The Elements panel shows the live page's DOM (its script's text), read over the relayed socket.
      await tab.waitForFunction(() => {
        const texts: string[] = [];
        const walk = (root: Document | ShadowRoot) => {
          for (const el of Array.from(root.querySelectorAll('*'))) {
            if (el.shadowRoot) walk(el.shadowRoot);
            if (el.childElementCount === 0 && el.textContent) texts.push(el.textContent);
          }
        };
        walk(document);
        return texts.some((text) => text.includes("console.log('page script ran')"));
      }, undefined, { timeout: 60_000 }).catch((err: Error) => assert.fail(`${err.message}; failed loads: ${failed.join(', ') || 'none'}`));
      assert.deepEqual(failed.filter((entry) => entry.includes('/devtools/')), [], 'every DevTools file loads');
      assert.deepEqual(untyped, [], 'every DevTools file has its type');
    } finally {
      await browser.close();
    }
    hold.release();
    assert.equal((await waitInvocation(svc, invocationId)).status, 'COMPLETED');
  });

  it('view-only refuses commands that act and allows reads; tokens are bound to their session and expire', async () => {
    const { invocationId, sessionId } = await startHeld();
    const viewOnly = await svc.request('GET', `/v1/sessions/${sessionId}/debug?viewOnly=true`);
    assert.equal(viewOnly.status, 200, JSON.stringify(viewOnly.body));
    const page = viewOnly.body.pages.find((p: { url: string }) => p.url === `${pages.url}/live`);
    const client = await cdp(pageSocketOf(page.debuggerUrl));
    const evaluate = await client.send('Runtime.evaluate', { expression: 'document.title' });
    assert.match(evaluate.error?.message ?? '', /not allowed in a view-only live view/);
    const navigate = await client.send('Page.navigate', { url: 'about:blank' });
    assert.ok(navigate.error, 'navigation refused');
    const doc = await client.send('DOM.getDocument');
    assert.equal(doc.result.root.nodeName, '#document');
    client.close();

    const token = new URL(page.debuggerUrl).pathname.split('/')[5]!;
    const forged = page.debuggerUrl.replace(token, `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`);
    assert.equal((await fetch(forged)).status, 401);
    const other = await svc.request('POST', `/v1/functions/${fnId}/invoke`, { params: { page: `${pages.url}/other`, hold: hold.url } });
    await hold.arrived(2);
    const foreignSession = page.debuggerUrl.replace(sessionId, other.body.sessionId);
    const refused = await fetch(foreignSession);
    assert.equal(refused.status, 401);
    assert.match((await refused.json()).message, /another session/);

    const short = await svc.request('GET', `/v1/sessions/${sessionId}/debug?expiresIn=1`);
    assert.equal(short.status, 200);
    await waitFor('the 1-second token to be refused', async () => ((await fetch(short.body.debuggerUrl)).status === 401 ? true : undefined), 30_000, 200);
    assert.equal((await svc.request('GET', `/v1/sessions/${sessionId}/debug?expiresIn=21601`)).status, 400);

    hold.release();
    assert.equal((await waitInvocation(svc, invocationId)).status, 'COMPLETED');
    assert.equal((await waitInvocation(svc, other.body.id)).status, 'COMPLETED');
  });

  it('another project\'s session is a 404 for live view and metrics; every new path needs its key or token', async () => {
    const { invocationId, sessionId } = await startHeld();
    for (const path of [`/v1/sessions/${sessionId}/debug`, `/v1/sessions/${sessionId}/metrics`]) {
      assert.equal((await svc.request('GET', path, undefined, { 'x-svc-api-key': 'other-key' })).status, 404, path);
      assert.equal((await fetch(svc.url + path)).status, 401, path);
    }
    const wsBase = svc.url.replace(/^http/, 'ws');
    const { items } = await svc.service.cluster.resource(Kinds.Pod).list('default');
    const pod = items[0]!.metadata.name;
    assert.equal(await refusedStatus(`${wsBase}/internal/v1/pods/default/${pod}/live`), 401, 'a pod channel needs the pod token');
    assert.equal(await refusedStatus(`${wsBase}/v1/sessions/${sessionId}/live/x.y/devtools/browser`), 401, 'a viewer socket needs a live token');
    assert.equal(await refusedStatus(`${wsBase}/v1/sessions/${sessionId}/logs`), 404, 'no other path upgrades');
    hold.release();
    await waitInvocation(svc, invocationId);
    assert.equal((await svc.request('GET', `/v1/sessions/${sessionId}/metrics`, undefined, { 'x-svc-api-key': 'other-key' })).status, 404);
    assert.equal((await svc.request('GET', `/v1/sessions/${sessionId}/debug`)).status, 409);
  });
});
