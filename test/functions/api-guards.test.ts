// Authentication, probes, metrics, and the ways an upload or a build can be wrong.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings, METRICS_TOKEN_FILE } from '../../src/config/settings.js';
import { startTestService, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { publish } from '../support/publish.js';

describe('façade guards and build failures (embedded)', function () {
  this.timeout(240_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc?.stop());

  it('needs the API key on every API route, with the error body shape', async () => {
    for (const [method, path] of [['GET', '/v1/functions'], ['POST', '/v1/functions/builds'], ['GET', '/v1/functions/builds'], ['POST', '/v1/functions/00000000-0000-4000-8000-000000000000/invoke']]) {
      const res = await fetch(svc.url + path, { method });
      assert.equal(res.status, 401, `${method} ${path}`);
      const body = await res.json();
      assert.deepEqual(Object.keys(body).sort(), ['error', 'message', 'statusCode']);
      assert.equal(body.error, 'Unauthorized');
      assert.match(body.message, /X-SVC-API-Key/);
    }
    const wrong = await svc.request('GET', '/v1/functions', undefined, { 'x-svc-api-key': 'nope' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.body.message, /Invalid API key/);
  });

  it('accepts the key in any header case and under the x-bb-api-key alias', async () => {
    for (const header of ['X-SVC-API-KEY', 'x-svc-api-key', 'X-Bb-Api-Key']) {
      const res = await fetch(svc.url + '/v1/functions', { headers: { [header]: svc.apiKey } });
      assert.equal(res.status, 200, header);
    }
  });

  it("answers methods no route takes (WebDAV's) with 501 and the error body, not a 500", async () => {
    for (const [method, path] of [['PROPFIND', '/healthz'], ['LOCK', '/v1/functions'], ['MKCOL', '/v1/functions/builds']]) {
      const res = await svc.request(method, path);
      assert.equal(res.status, 501, `${method} ${path}`);
      assert.deepEqual(res.body, { statusCode: 501, error: 'Not Implemented', message: 'Method not implemented: the API takes GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS' });
    }
  });

  it('serves health, readiness and Prometheus metrics', async () => {
    assert.equal((await fetch(svc.url + '/healthz')).status, 200);
    const ready = await fetch(svc.url + '/readyz');
    assert.equal(ready.status, 200);
    const metrics = await svc.metrics();
    for (const name of ['browserfn_invocations_total', 'browserfn_invocation_duration_seconds', 'browserfn_build_duration_seconds', 'browserfn_workqueue_depth']) {
      assert.ok(metrics.includes(name), `metric ${name}`);
    }
  });

  it('opens /metrics to the metrics token only: not without it, not to a wrong one, not to a project\'s API key', async () => {
    const refusals: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-of-some-length' },
      { authorization: `Basic ${Buffer.from(`x:${svc.metricsToken}`).toString('base64')}` },
      { 'x-svc-api-key': svc.apiKey },
      { authorization: `Bearer ${svc.apiKey}` },
    ];
    for (const headers of refusals) {
      const res = await fetch(svc.url + '/metrics', { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer /);
      const body = await res.json();
      assert.match(body.message, /metrics token/);
      assert.ok(!JSON.stringify(body).includes('browserfn_'), 'no metric in a refusal');
    }
  });

  it('publishes an OpenAPI document made from the route definitions', async () => {
    const doc = await (await fetch(svc.url + '/v1/openapi.json')).json();
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.paths['/v1/functions/{id}/secrets'].get.operationId, 'Functions_listSecrets');
    assert.deepEqual(doc.paths['/v1/fetch'].post.requestBody.content['application/json'].schema.required, ['url']);
    assert.ok(doc.paths['/v1/functions/{function_id}/invoke'].post.requestBody, 'invoke documents its body');
    assert.deepEqual(doc.paths['/v1/functions'].get.security, [{ apiKey: [] }]);
  });

  it('refuses malformed uploads with 4xx and a message saying what to send', async () => {
    const noMultipart = await svc.request('POST', '/v1/functions/builds', { entrypoint: 'index.ts' });
    assert.equal(noMultipart.status, 415);
    assert.match(noMultipart.body.message, /multipart\/form-data/);

    const form = (metadata: string | undefined, archive?: Uint8Array<ArrayBuffer>) => {
      const f = new FormData();
      if (metadata !== undefined) f.append('metadata', metadata);
      if (archive) f.append('archive', new Blob([archive]), 'archive.tar.gz');
      return f;
    };
    const gz = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const cases: [FormData, RegExp][] = [
      [form(undefined, gz), /Missing the "metadata"/],
      [form('{bad', gz), /not valid JSON/],
      [form('{}', gz), /entrypoint is required/],
      [form('{"entrypoint":"../outside.ts"}', gz), /relative path inside the project/],
      [form('{"entrypoint":"index.ts"}'), /Missing the "archive"/],
      [form('{"entrypoint":"index.ts"}', new Uint8Array(new TextEncoder().encode('plain text'))), /gzip/],
    ];
    for (const [body, message] of cases) {
      const res = await svc.request('POST', '/v1/functions/builds', body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.match(res.body.message, message);
    }
    const builds = await svc.request('GET', '/v1/functions/builds');
    assert.equal(builds.body.total, 0, 'a refused upload leaves no build behind');
  });

  const failures: [string, Record<string, string>, string, RegExp][] = [
    ['a syntax error (with file and line)', { 'index.ts': `import './broken.js';`, 'broken.ts': `import { defineFn } from 'browserfn';\ndefineFn('x', async () => {\n  return {;\n});\n` }, 'BUNDLE_FAILED', /broken\.ts:3/],
    ['no defineFn', { 'index.ts': `export const x = 1;` }, 'NO_MANIFESTS_FOUND', /defineFn/],
    ['two Functions with one name', { 'index.ts': `import { defineFn } from 'browserfn';\nimport './b.js';\ndefineFn('same', async () => 1);`, 'b.ts': `import { defineFn } from 'browserfn';\ndefineFn('same', async () => 2);` }, 'DUPLICATE_FUNCTION_NAME', /same/],
    ['a bad sessionConfig', { 'index.ts': `import { defineFn } from 'browserfn';\ndefineFn('cfg', async () => 1, { sessionConfig: { timeout: 5 } as any });` }, 'INVALID_SESSION_CREATE_PARAMS', /timeout/],
  ];
  for (const [what, files, code, message] of failures) {
    it(`fails a build with ${what}: FAILED, cause ${code}`, async () => {
      const build = await publish(svc, writeProject(files));
      assert.equal(build.status, 'FAILED');
      assert.equal(build.cause?.code, code, JSON.stringify(build.cause));
      assert.match(build.cause?.message ?? '', message);
    });
  }
});

describe('the metrics token (BROWSERFN_METRICS_TOKEN)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-metrics-token-'));
  const settings = (env: Record<string, string>) => loadSettings({ dataDir, env: { BROWSERFN_POD_TOKEN_SECRET: 'x', BROWSERFN_API_KEY: 'k', ...env } });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is made once in the data dir, readable by the server only, when not set', () => {
    const made = settings({}).metricsToken;
    assert.ok(made.length >= 16);
    assert.equal(readFileSync(join(dataDir, METRICS_TOKEN_FILE), 'utf8').trim(), made);
    assert.equal(statSync(join(dataDir, METRICS_TOKEN_FILE)).mode & 0o777, 0o600);
    assert.equal(settings({}).metricsToken, made, 'the same on the next start');
    assert.equal(settings({ BROWSERFN_METRICS_TOKEN: 'a-token-set-by-the-operator' }).metricsToken, 'a-token-set-by-the-operator');
  });

  it('refuses a short token without echoing it', () => {
    assert.throws(
      () => settings({ BROWSERFN_METRICS_TOKEN: 'short-s3cret' }),
      (err: Error) => /^BROWSERFN_METRICS_TOKEN must be at least 16 characters/.test(err.message) && !err.message.includes('s3cret'),
    );
  });
});
