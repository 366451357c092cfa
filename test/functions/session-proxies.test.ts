// A session's `proxies` applied to its browser, on the real `serve` stack (Chromium, the pod's session
// proxy): each request goes the way the first entry whose domainPattern matches its host says,
// through the caller's proxy with its credentials, the operator's (BROWSERFN_BROWSER_PROXY) with
// its own, or direct; `proxies: true` sends everything through the operator's. The two upstream
// proxies here answer for the hosts themselves, so a page's text says which way it came, and they
// refuse requests without their credentials.
import assert from 'node:assert/strict';
import { Server } from 'proxy-chain';
import { startTestService, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';

const FN = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';

defineFn('visit', async (ctx, params: { urls: string[] }) => {
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
  const seen: string[] = [];
  for (const url of params.urls) {
    try {
      const response = await page.goto(url);
      seen.push(response && !response.ok() ? \`HTTP \${response.status()}\` : (await page.textContent('h1')) ?? '');
    } catch (error) {
      seen.push(String((error as Error).message).match(/net::[A-Z_]+/)?.[0] ?? 'failed');
    }
  }
  return { seen };
});

defineFn('configured', async () => null, {
  sessionConfig: {
    proxies: [
      { type: 'external', server: 'http://127.0.0.1:9', username: 'bob', password: 'deploy-secret' },
      { type: 'external', server: 'http://carol:url-secret@127.0.0.1:10', domainPattern: 'x-example' },
    ],
  },
});
`;

interface UpstreamProxy {
  url: string;
  /** Host names asked for, with the credentials they came with. */
  asked: string[];
  close(): Promise<void>;
}

/** A proxy that wants `username`/`password` and answers every plain HTTP request itself: "<name> for <host>". */
async function startUpstreamProxy(name: string, username: string, password: string): Promise<UpstreamProxy> {
  const asked: string[] = [];
  const server = new Server({
    host: '127.0.0.1',
    port: 0,
    verbose: false,
    prepareRequestFunction: ({ hostname, username: user, password: pass }) => {
      asked.push(`${hostname} as ${user}`);
      if (user !== username || pass !== password) return { requestAuthentication: true };
      return { customResponseFunction: () => ({ statusCode: 200, headers: { 'content-type': 'text/html' }, body: `<h1>${name} for ${hostname}</h1>` }) };
    },
  });
  await server.listen();
  return { url: `http://127.0.0.1:${server.port}`, asked, close: () => server.close(true) };
}

describe('session proxies (serve, Chromium, the pod session proxy)', function () {
  this.timeout(600_000);
  let svc: TestService;
  let caller: UpstreamProxy;
  let operator: UpstreamProxy;
  let fnId: string;
  let configuredVersionId: string;

  before(async () => {
    caller = await startUpstreamProxy('caller proxy', 'alice', 'p@ss:word');
    operator = await startUpstreamProxy('operator proxy', 'op', 'op-secret');
    svc = await startTestService({ BROWSERFN_BROWSER_PROXY: operator.url.replace('http://', 'http://op:op-secret@') });
    const build = await publish(svc, writeProject({ 'index.ts': FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    fnId = build.builtFunctions!.find((fn) => fn.name === 'visit')!.id;
    configuredVersionId = build.builtFunctions!.find((fn) => fn.name === 'configured')!.createdVersion!;
  });
  after(async () => {
    await svc?.stop();
    await caller?.close();
    await operator?.close();
  });

  it("routes each host by the first matching entry: the caller's proxy with its credentials, the operator's, or direct", async () => {
    const proxies = [
      { type: 'none', domainPattern: 'direct\\.example' },
      { type: 'external', server: caller.url, username: 'alice', password: 'p@ss:word', domainPattern: '(shop|cart)\\.example' },
      { type: 'browserbase' },
    ];
    const urls = ['http://shop.example/', 'http://news.example/', 'http://direct.example/', 'http://cart.example/'];
    const done = await invokeAndWait(svc, fnId, { params: { urls }, sessionCreateParams: { proxies } }, 300_000);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    assert.deepEqual((done.results as { seen: string[] }).seen, [
      'caller proxy for shop.example',
      'operator proxy for news.example',
      // Direct: no proxy answers for it, and the name resolves nowhere (the session proxy says so with a 502).
      'HTTP 502',
      'caller proxy for cart.example',
    ]);
    assert.ok(!caller.asked.some((asked) => asked.startsWith('direct.example') || asked.startsWith('news.example')), caller.asked.join(', '));
    assert.ok(!operator.asked.some((asked) => asked.startsWith('direct.example')), operator.asked.join(', '));
  });

  it("sends every request through the operator's proxy for proxies: true, and none without proxies", async () => {
    const proxied = await invokeAndWait(svc, fnId, { params: { urls: ['http://any.example/'] }, sessionCreateParams: { proxies: true } }, 300_000);
    assert.equal(proxied.status, 'COMPLETED', JSON.stringify(proxied.cause));
    assert.deepEqual((proxied.results as { seen: string[] }).seen, ['operator proxy for any.example']);
    const asked = operator.asked.length + caller.asked.length;
    const plain = await invokeAndWait(svc, fnId, { params: { urls: ['http://plain.example/'] } }, 300_000);
    assert.equal(plain.status, 'COMPLETED', JSON.stringify(plain.cause));
    // The browser's own lookup, with no session proxy in between.
    assert.deepEqual((plain.results as { seen: string[] }).seen, ['net::ERR_NAME_NOT_RESOLVED']);
    assert.equal(operator.asked.length + caller.asked.length, asked, 'a session without proxies asks no proxy');
  });

  it("shows a deploy-time proxy's password as [REDACTED] in the Function's version", async () => {
    const version = await svc.request('GET', `/v1/functions/versions/${configuredVersionId}`);
    assert.equal(version.status, 200, JSON.stringify(version.body));
    assert.deepEqual(version.body.sessionCreateParams, {
      proxies: [
        { type: 'external', server: 'http://127.0.0.1:9', username: 'bob', password: '[REDACTED]' },
        { type: 'external', server: 'http://carol:[REDACTED]@127.0.0.1:10', domainPattern: 'x-example' },
      ],
    });
  });

  it("keeps the credentials out of what the API shows of the invocation's session", async () => {
    const done = await invokeAndWait(
      svc,
      fnId,
      { params: { urls: ['http://shop.example/'] }, sessionCreateParams: { proxies: [{ type: 'external', server: caller.url, username: 'alice', password: 'p@ss:word' }] } },
      300_000,
    );
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    for (const path of [`/v1/functions/invocations/${done.id}`, `/v1/sessions/${done.sessionId}`, `/v1/sessions/${done.sessionId}/logs`]) {
      const shown = await svc.request('GET', path);
      const text = JSON.stringify(shown.body);
      assert.equal(shown.status, 200, `${path}: ${text}`);
      assert.ok(!text.includes('p@ss') && !text.includes('op-secret'), `${path} shows a proxy credential: ${text.slice(0, 500)}`);
    }
  });
});
