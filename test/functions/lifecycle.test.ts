// Publish → invoke → results, logs and sessions, end to end on the real stack: embedded store,
// controllers, node agent, build and browser pods as processes, Debian's Chromium.
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { startPageServer, type PageServer } from '../support/http-fixtures.js';
import { invokeAndWait, publish } from '../support/publish.js';

const TITLE_FN = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';
import { describePage } from './lib/describe.js';

defineFn('page-title', async (ctx, params: { url: string }) => {
  console.log('visiting', params.url);
  console.warn('a warning');
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  const context = browser.contexts()[0] ?? (await browser.newContext());
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(params.url);
  const title = await page.title();
  const sum = await page.evaluate('1 + 1');
  return describePage(title, sum as number, ctx.session.id);
}, { parametersSchema: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } } });
`;

const LIB = `
export function describePage(title: string, sum: number, sessionId: string) {
  return { title, sum, sessionId, nested: { list: [1, 'two', null, true] } };
}
`;

const FAILING_FN = `
import { defineFn } from 'browserfn';
defineFn('always-fails', async () => {
  console.error('about to fail');
  throw new Error('the widget could not be found');
});
defineFn('returns-nothing', async () => {});
`;

// CPU-bound work that never yields (a big synchronous parse): the runtime's connection to its agent sits idle meanwhile.
const BLOCKING_FN = `
import { defineFn } from 'browserfn';
defineFn('blocks', async (_ctx, params: { ms: number }) => {
  const until = Date.now() + params.ms;
  let spins = 0;
  while (Date.now() < until) spins++;
  return { blockedMs: params.ms, spun: spins > 0 };
});
`;

describe('functions end to end (embedded)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let pages: PageServer;
  let titleFnId: string;

  before(async () => {
    svc = await startTestService();
    pages = await startPageServer();
  });
  after(async () => {
    await svc?.stop();
    await pages?.close();
  });

  it('publishes a multi-file project and reports each Function built with its ID', async () => {
    const root = writeProject({ 'index.ts': `import './title.js';\nimport './failing.js';\n`, 'title.ts': TITLE_FN, 'lib/describe.ts': LIB, 'failing.ts': FAILING_FN });
    const build = await publish(svc, root);
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const names = (build.builtFunctions ?? []).map((f) => f.name).sort();
    assert.deepEqual(names, ['always-fails', 'page-title', 'returns-nothing']);
    titleFnId = build.builtFunctions!.find((f) => f.name === 'page-title')!.id;
    assert.match(titleFnId, /^[0-9a-f-]{36}$/);

    const list = await svc.request('GET', '/v1/functions');
    assert.equal(list.status, 200);
    assert.equal(list.body.total, 3);
    const one = await svc.request('GET', `/v1/functions/${titleFnId}`);
    assert.equal(one.body.name, 'page-title');
    assert.equal(one.body.id, titleFnId);

    const logs = await svc.request('GET', `/v1/functions/builds/${build.id}/logs`);
    assert.equal(logs.status, 200);
    assert.ok(logs.body.total > 0, 'build logs are kept');
  });

  it('invokes with a fresh browser: 202 PENDING, then COMPLETED with JSON results, console logs and a session', async () => {
    const created = await svc.request('POST', `/v1/functions/${titleFnId}/invoke`, { params: { url: `${pages.url}/hello` } });
    assert.equal(created.status, 202);
    assert.ok(['PENDING', 'RUNNING'].includes(created.body.status));
    assert.equal(created.body.functionId, titleFnId);

    const done = await invokeAndWait(svc, titleFnId, { params: { url: `${pages.url}/hello` } });
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    const results = done.results as { title: string; sum: number; sessionId: string; nested: unknown };
    assert.equal(results.title, 'Test page /hello');
    assert.equal(results.sum, 2);
    assert.equal(results.sessionId, done.sessionId, 'ctx.session.id is the session of the invocation');
    assert.deepEqual(results.nested, { list: [1, 'two', null, true] });

    const { body: logs } = await svc.request('GET', `/v1/functions/invocations/${done.id}/logs`);
    const visiting = logs.logs.find((l: { message: string }) => l.message.includes('visiting'));
    assert.ok(visiting, `console.log captured: ${JSON.stringify(logs.logs)}`);
    assert.ok(!Number.isNaN(Date.parse(visiting.timestamp)), 'log entries carry timestamps');
    assert.ok(logs.logs.some((l: { message: string; level: string }) => l.message.includes('a warning') && l.level === 'warn'));

    const session = await svc.request('GET', `/v1/sessions/${done.sessionId}`);
    assert.equal(session.status, 200);
    assert.equal(session.body.status, 'COMPLETED');
    assert.ok(session.body.endedAt, 'the session closed by itself');
    const sessionLogs = await svc.request('GET', `/v1/sessions/${done.sessionId}/logs`);
    assert.ok(Array.isArray(sessionLogs.body) && sessionLogs.body.length > 0, 'the session was recorded');
    assert.ok(sessionLogs.body.some((e: { method: string }) => e.method.startsWith('Network.') || e.method.startsWith('Page.')));
  });

  it('a throwing handler fails with WORKLOAD_ERROR, its message in cause and the stack in the logs', async () => {
    const { body: build } = await svc.request('GET', '/v1/functions');
    const failing = build.data.find((f: { name: string }) => f.name === 'always-fails');
    const done = await invokeAndWait(svc, failing.id, {});
    assert.equal(done.status, 'FAILED');
    assert.equal(done.cause?.code, 'WORKLOAD_ERROR');
    assert.match(done.cause?.message ?? '', /the widget could not be found/);
    const { body: logs } = await svc.request('GET', `/v1/functions/invocations/${done.id}/logs`);
    const stack = logs.logs.find((l: { message: string }) => l.message.includes('the widget could not be found') && l.message.includes('\n'));
    assert.ok(stack, `multi-line stack in logs: ${JSON.stringify(logs.logs)}`);
    assert.ok(logs.logs.some((l: { message: string; level: string }) => l.message.includes('about to fail') && l.level === 'error'));
  });

  it('a handler that returns nothing completes without results', async () => {
    const { body } = await svc.request('GET', '/v1/functions');
    const fn = body.data.find((f: { name: string }) => f.name === 'returns-nothing');
    const done = await invokeAndWait(svc, fn.id, {});
    assert.equal(done.status, 'COMPLETED');
    assert.equal(done.results, undefined);
  });

  it('returns the result of a handler that holds its event loop longer than an idle connection lives (8 s)', async () => {
    const build = await publish(svc, writeProject({ 'index.ts': BLOCKING_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const done = await invokeAndWait(svc, build.builtFunctions![0].id, { params: { ms: 8000 } });
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    assert.deepEqual(done.results, { blockedMs: 8000, spun: true });
  });

  it('publishing the same name again keeps the Function ID and adds a version', async () => {
    const root = writeProject({ 'index.ts': TITLE_FN.replace("'./lib/describe.js'", "'./describe.js'"), 'describe.ts': LIB });
    const build = await publish(svc, root);
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    assert.equal(build.builtFunctions?.[0].id, titleFnId);
    const versions = await svc.request('GET', `/v1/functions/${titleFnId}/versions`);
    assert.equal(versions.status, 200);
    assert.equal(versions.body.total, 2);
    assert.equal(versions.body.results[0].id, build.builtFunctions?.[0].createdVersion);
    const version = await svc.request('GET', `/v1/functions/versions/${versions.body.results[1].id}`);
    assert.equal(version.body.functionId, titleFnId);
    assert.deepEqual(version.body.userParamsSchema.required, ['url']);
  });

  it('validates invoke input: schema, size, per-invocation region/keepAlive, timeout bounds and proxies', async () => {
    const bad = async (body: unknown, pattern: RegExp) => {
      const res = await svc.request('POST', `/v1/functions/${titleFnId}/invoke`, body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.statusCode, 400);
      assert.equal(res.body.error, 'Bad Request');
      assert.match(res.body.message, pattern);
    };
    await bad({ params: {} }, /url is required/);
    await bad({ params: { url: 5 } }, /params\.url must be string/);
    await bad({ params: { url: 'x', pad: 'a'.repeat(70 * 1024) } }, /limit is 65536 bytes/);
    await bad({ params: { url: 'x' }, sessionCreateParams: { region: 'us-east-1' } }, /region cannot be set per invocation/);
    await bad({ params: { url: 'x' }, sessionCreateParams: { keepAlive: true } }, /keepAlive cannot be set per invocation/);
    await bad({ params: { url: 'x' }, sessionCreateParams: { timeout: 30 } }, /timeout must be an integer .* 60 to 900/);
    await bad({ params: { url: 'x' }, sessionCreateParams: { timeout: 901 } }, /timeout/);
    // This server has no proxy for browsers (BROWSERFN_BROWSER_PROXY), which proxies: true asks for.
    await bad({ params: { url: 'x' }, sessionCreateParams: { proxies: true } }, /asks for the operator's proxy .* this server has none \(BROWSERFN_BROWSER_PROXY\)/);
    await bad({ params: { url: 'x' }, sessionCreateParams: { proxies: [{ type: 'none', domainPattern: 'a\\.example' }, { type: 'browserbase' }] } }, /BROWSERFN_BROWSER_PROXY/);
    await bad({ params: { url: 'x' }, sessionCreateParams: { proxies: [{ type: 'external', server: 'ftp://p:21' }] } }, /proxies\.0\.server must be a proxy address/);
    await bad({ params: 'nope' }, /params must be object/);
    await bad({ unknown: 1 }, /unknown property "unknown"/);
    const malformed = await svc.request('POST', `/v1/functions/${titleFnId}/invoke`, '{"params":', { 'content-type': 'application/json' });
    assert.equal(malformed.status, 400);
    assert.match(malformed.body.message, /not valid JSON/);
  });

  it('answers 400 for malformed IDs and 404 for unknown or other-project objects', async () => {
    const notUuid = await svc.request('GET', '/v1/functions/not-a-uuid');
    assert.equal(notUuid.status, 400);
    assert.match(notUuid.body.message, /UUID/);
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const path of [`/v1/functions/${unknown}`, `/v1/functions/builds/${unknown}`, `/v1/functions/invocations/${unknown}`, `/v1/functions/versions/${unknown}`, `/v1/sessions/${unknown}`]) {
      const res = await svc.request('GET', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.error, 'Not Found');
    }
    const invokeUnknown = await svc.request('POST', `/v1/functions/${unknown}/invoke`, {});
    assert.equal(invokeUnknown.status, 404);
    const otherProject = await svc.request('GET', `/v1/functions/${titleFnId}`, undefined, { 'x-svc-api-key': 'other-key' });
    assert.equal(otherProject.status, 404, 'another project cannot see the Function');
    const otherInvoke = await svc.request('POST', `/v1/functions/${titleFnId}/invoke`, { params: { url: 'x' } }, { 'x-svc-api-key': 'other-key' });
    assert.equal(otherInvoke.status, 404);
  });
});
