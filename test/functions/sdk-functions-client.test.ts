// The unmodified public clients against browserfn: a project written for
// @browserbasehq/sdk-functions, installed from its lockfile, published and invoked with that
// package's own `bb` CLI (which sends x-bb-api-key), then read back through our API.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestService, type TestService } from '../support/service.js';
import { startPageServer, type PageServer } from '../support/http-fixtures.js';
import { invokeAndWait } from '../support/publish.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/projects/sdk-functions', import.meta.url));

function run(cmd: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env: { ...process.env, ...env }, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('@browserbasehq/sdk-functions project with its own bb CLI', function () {
  this.timeout(480_000);
  let svc: TestService;
  let pages: PageServer;
  let project: string;
  let env: Record<string, string>;
  const bb = (args: string[]) => run(process.execPath, ['node_modules/@browserbasehq/sdk-functions/dist/cli.js', ...args, '--api-url', svc.url], project, env);

  before(async () => {
    svc = await startTestService();
    pages = await startPageServer();
    project = mkdtempSync(join(tmpdir(), 'sdkf-project-'));
    cpSync(FIXTURE, project, { recursive: true });
    const install = await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--cache', join(tmpdir(), 'browserfn-test-npm-cache')], project, {});
    assert.equal(install.code, 0, install.stderr);
    env = { BROWSERBASE_API_KEY: svc.apiKey, BROWSERBASE_PROJECT_ID: 'default' };
  });
  after(async () => {
    await svc?.stop();
    await pages?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('publishes with `bb publish` (server-side npm ci from the lockfile) and invokes with `bb invoke`', async () => {
    const published = await bb(['publish', 'index.mts']);
    assert.equal(published.code, 0, published.stdout + published.stderr);
    const { body: fns } = await svc.request('GET', '/v1/functions');
    const names = fns.data.map((f: { name: string }) => f.name).sort();
    assert.deepEqual(names, ['sdkf-failing', 'sdkf-page-title']);
    const titleFn = fns.data.find((f: { name: string }) => f.name === 'sdkf-page-title');
    assert.ok(published.stdout.includes(titleFn.id), 'bb prints the Function ID we assigned');

    const { body: versions } = await svc.request('GET', `/v1/functions/${titleFn.id}/versions`);
    assert.equal(versions.results[0].userParamsSchema.properties.greeting.type, 'string', 'zod schema introspected');
    assert.deepEqual(versions.results[0].sessionCreateParams, { browserSettings: { solveCaptchas: false }, proxies: false });

    const invoked = await bb(['invoke', titleFn.id, '--params', JSON.stringify({ url: `${pages.url}/sdkf`, greeting: 'hello' })]);
    assert.equal(invoked.code, 0, invoked.stdout + invoked.stderr);
    assert.match(invoked.stdout, /"title": "Test page \/sdkf"/);
    assert.match(invoked.stdout, /"greeting": "hello"/);
  });

  it('validates params against the zod-derived schema and reports handler failures', async () => {
    const { body: fns } = await svc.request('GET', '/v1/functions');
    const titleFn = fns.data.find((f: { name: string }) => f.name === 'sdkf-page-title');
    const bad = await svc.request('POST', `/v1/functions/${titleFn.id}/invoke`, { params: { url: 'x' } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /greeting is required/);

    const failing = fns.data.find((f: { name: string }) => f.name === 'sdkf-failing');
    const done = await invokeAndWait(svc, failing.id, {});
    assert.equal(done.status, 'FAILED');
    assert.equal(done.cause?.code, 'WORKLOAD_ERROR');
    assert.match(done.cause?.message ?? '', /sdk-functions handler failed/);
  });
});
