// `browserfn dev`, run as the user runs it: invoke by name answers with the result; a change is
// rebuilt and served, a broken change keeps the last good build and says why; secrets come from a
// local file and are never shown; the handler's console reaches the terminal while it runs; the
// timeout is production's; and a project written for @browserbasehq/sdk-functions gets the hosted
// dev server's wire (GET /, POST /v1/functions/{name}/invoke, its error shapes, CORS).
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeProject } from '../support/projects.js';
import { startDev, type DevProcess } from '../support/dev-process.js';
import { startPageServer, type PageServer } from '../support/http-fixtures.js';

/** The Functions a "Build … ready in … s: a, b" line names. */
const builtNames = (line: string) => line.slice(line.lastIndexOf(': ') + 2).split(', ').sort();

const SECRET = 'dev-secret-' + Math.random().toString(36).slice(2, 12);

const entry = (version: number) => `import { defineFn } from 'browserfn';
defineFn('greet', async (_ctx, params: { who: string }) => ({ hello: params.who, version: ${version} }), {
  parametersSchema: { type: 'object', required: ['who'], properties: { who: { type: 'string' } } },
});
defineFn('secret', async (ctx) => {
  console.log('the token is ' + ctx.secrets.API_TOKEN);
  return { token: ctx.secrets.API_TOKEN, length: ctx.secrets.API_TOKEN.length };
});
defineFn('forever', async () => {
  console.log('forever has started');
  await new Promise(() => {});
});
`;

describe('browserfn dev', function () {
  this.timeout(600_000);
  let root: string;
  let dev: DevProcess;

  before(async () => {
    // No secrets file yet: the secrets test makes the default one while dev runs.
    root = writeProject({ 'index.ts': entry(1) });
    dev = await startDev(root, 'index.ts');
    assert.deepEqual(builtNames(await dev.line(/^Build \S+ ready in /)), ['forever', 'greet', 'secret']);
    assert.match(dev.output(), /No secrets yet: .*\.env\.browserfn is read once it exists/);
  });
  after(async () => {
    const output = dev?.output() ?? '';
    await dev?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
    assert.ok(!output.includes(SECRET), 'the secret value never reaches the terminal');
  });

  it('invokes a Function by name and answers with its result; params and sessionCreateParams follow production rules', async () => {
    assert.deepEqual((await dev.request('GET', '/')).body, { ok: true });
    const done = await dev.request('POST', '/v1/functions/greet/invoke', { params: { who: 'dev' } });
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.body, { hello: 'dev', version: 1 });
    assert.match(done.headers.get('x-browserfn-invocation-id') ?? '', /^[0-9a-f-]{36}$/);

    const badParams = await dev.request('POST', '/v1/functions/greet/invoke', { params: { who: 7 } });
    assert.equal(badParams.status, 400);
    assert.match(badParams.body.message, /params do not match the Function's parameter schema/);
    const badSession = await dev.request('POST', '/v1/functions/greet/invoke', { params: { who: 'x' }, sessionCreateParams: { region: 'us-west-2' } });
    assert.equal(badSession.status, 400);
    assert.match(badSession.body.message, /region cannot be set per invocation/);
    const missing = await dev.request('POST', '/v1/functions/nope/invoke', {});
    assert.equal(missing.status, 404);
    assert.match(missing.body.message, /Function "nope" not found/);
  });

  it('hands the local secrets file to context.secrets, also one made while dev runs, and never shows the value', async () => {
    const from = dev.output().length;
    writeFileSync(join(root, '.env.browserfn'), `# local secrets\nAPI_TOKEN="${SECRET}"\n`);
    await dev.line(/^Build \S+ ready in /, from);
    const done = await dev.request('POST', '/v1/functions/secret/invoke', {});
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.length, SECRET.length, 'the handler got the value');
    assert.ok(!done.text.includes(SECRET), 'not in the response');
    assert.equal(done.body.token, '[REDACTED]');
    const logged = await dev.line(/the token is/, from);
    assert.match(logged, /\[secret\] the token is \[REDACTED\]/);
  });

  it('rebuilds on a change and serves the new build', async () => {
    const from = dev.output().length;
    writeFileSync(join(root, 'index.ts'), entry(2));
    await dev.line(/^Building \(index\.ts\)/, from);
    await dev.line(/^Build \S+ ready in /, from);
    const done = await dev.request('POST', '/v1/functions/greet/invoke', { params: { who: 'again' } });
    assert.deepEqual(done.body, { hello: 'again', version: 2 });
  });

  it('keeps serving the last good build when a change does not build, and says why', async () => {
    const from = dev.output().length;
    writeFileSync(join(root, 'index.ts'), entry(3) + '\ndefineFn(((\n');
    await dev.line(/^Build failed in .*; still serving the last good build:$/, from);
    await dev.line(/BUNDLE_FAILED/, from);
    await dev.line(/index\.ts:\d+:\d+: error: /, from);
    const done = await dev.request('POST', '/v1/functions/greet/invoke', { params: { who: 'still' } });
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.body, { hello: 'still', version: 2 });
  });

  it('prints the console while the handler runs, and times out as in production', async () => {
    const from = dev.output().length;
    const started = Date.now();
    let answered = false;
    const response = dev.request('POST', '/v1/functions/forever/invoke', { sessionCreateParams: { timeout: 60 } }).finally(() => (answered = true));
    await dev.line(/^\[forever\] forever has started$/, from);
    assert.equal(answered, false, 'the line is shown before the invocation ends');
    const done = await response;
    assert.ok(Date.now() - started >= 60_000, 'not before the timeout');
    assert.equal(done.status, 500);
    assert.equal(done.body.error.type, 'TIMED_OUT');
    assert.match(done.body.error.message, /did not finish within 60 seconds/);
    await dev.line(/^✗ forever failed: TIMED_OUT/, from);
  });

  it('cancels the invocation when the caller goes away', async () => {
    const from = dev.output().length;
    const caller = new AbortController();
    const response = fetch(`${dev.url}/v1/functions/forever/invoke`, { method: 'POST', body: '{}', signal: caller.signal }).catch((err: Error) => err);
    await dev.line(/^\[forever\] forever has started$/, from);
    caller.abort();
    assert.ok((await response) instanceof Error);
    await dev.line(/^✗ forever failed: CANCELLED/, from, 60_000);
  });
});

const SDK_FIXTURE = fileURLToPath(new URL('../../../test/fixtures/projects/sdk-functions', import.meta.url));

describe('browserfn dev with a project written for @browserbasehq/sdk-functions (the hosted dev wire)', function () {
  this.timeout(600_000);
  let root: string;
  let dev: DevProcess;
  let pages: PageServer;

  before(async () => {
    pages = await startPageServer();
    root = mkdtempSync(join(tmpdir(), 'sdkf-dev-'));
    cpSync(SDK_FIXTURE, root, { recursive: true });
    // The hosted CLI's own flags: `bb dev index.mts --port N`. A warm pool as by default: its members' console lines are labelled too.
    dev = await startDev(root, 'index.mts', [], { BROWSERFN_WARM_POOL_SIZE: '1' });
    assert.deepEqual(builtNames(await dev.line(/^Build \S+ ready in /)), ['sdkf-failing', 'sdkf-page-title']);
  });
  after(async () => {
    await dev?.stop();
    await pages?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('answers the hosted routes: GET /, OPTIONS, POST /v1/functions/{name}/invoke with {params} → the result', async () => {
    assert.deepEqual((await dev.request('GET', '/')).body, { ok: true });
    // A page of a local front end may call it (its origin allowed exactly); other sites get a 403 (test/server/dev-server-parts.test.ts).
    const preflight = await dev.request('OPTIONS', '/v1/functions/sdkf-page-title/invoke', undefined, { origin: 'http://localhost:5173' });
    assert.equal(preflight.status, 200);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://localhost:5173');

    const from = dev.output().length;
    const done = await dev.request('POST', '/v1/functions/sdkf-page-title/invoke', { params: { url: `${pages.url}/dev`, greeting: 'hi' } });
    assert.equal(done.status, 200, done.text);
    await dev.line(new RegExp(`^\\[sdkf-page-title\\] visited ${pages.url}/dev$`), from, 10_000);
    assert.equal(done.body.title, 'Test page /dev');
    assert.equal(done.body.greeting, 'hi');
    assert.equal(done.body.sessionId, done.headers.get('x-browserfn-session-id'));

    // The SDK's runtime client defaults to this address; an entry started by hand is told why it gets nothing.
    const next = await dev.request('GET', '/2018-06-01/runtime/invocation/next');
    assert.equal(next.status, 404);
    assert.match(next.body.message, /runs the entry itself/);
  });

  it('checks params against the zod schema (400) and answers a failed handler as the hosted server does (500 {error:{message,type,stackTrace}})', async () => {
    const bad = await dev.request('POST', '/v1/functions/sdkf-page-title/invoke', { params: { url: pages.url } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'Bad Request');
    assert.match(bad.body.message, /greeting/);

    const failed = await dev.request('POST', '/v1/functions/sdkf-failing/invoke', { params: {} });
    assert.equal(failed.status, 500);
    assert.match(failed.body.error.message, /sdk-functions handler failed/);
    assert.equal(failed.body.error.type, 'WORKLOAD_ERROR');
    assert.ok(failed.body.error.stackTrace.some((line: string) => /sdk-functions handler failed/.test(line)), JSON.stringify(failed.body.error.stackTrace));
    assert.ok(failed.body.error.stackTrace.some((line: string) => /^\s*at /.test(line)), 'the stack, one line each');
  });
});
