// Real projects from the npm registry, unmodified, installed by the build from their lockfiles
// (npm ci), published and invoked end to end on the embedded stack.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestService, type TestService } from '../support/service.js';
import { invokeAndWait, publish } from '../support/publish.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../../test/fixtures/projects/${name}`, import.meta.url));

describe('real projects (embedded)', function () {
  // npm ci downloads the packages from the registry.
  this.timeout(300_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc?.stop();
  });

  async function publishAndInvoke(project: string, functionName: string, params: Record<string, unknown> = {}) {
    const build = await publish(svc, fixture(project), 'index.mts');
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const fn = build.builtFunctions?.find((candidate) => candidate.name === functionName);
    assert.ok(fn, `${functionName} built`);
    return invokeAndWait(svc, fn.id, { params });
  }

  it('openai 4 and zod: builds despite node-fetch\'s optional require("encoding") and runs offline', async () => {
    const run = await publishAndInvoke('real-openai', 'openai-offline', { city: 'Nantes' });
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run.cause));
    assert.deepEqual(run.results, {
      baseURL: 'http://127.0.0.1:9/v1',
      formatName: 'answer',
      required: ['city', 'population'],
      parsed: { city: 'Nantes', population: 522_000 },
    });
  });

  it('import { chromium } from "playwright" runs on the runtime\'s playwright-core', async () => {
    const run = await publishAndInvoke('real-playwright', 'playwright-title');
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run.cause));
    assert.deepEqual(run.results, { title: 'Playwright Alias' });
  });

  // Stagehand 2.5 bundles (its optional requires no longer fail it) to about 6.1 MB, 1.0 MB
  // gzip-compressed: over today's 900 KiB artifact limit until bundles are chunked (issue 10, item 2).
  it('Stagehand 2.5 bundles, its optional requires logged as warnings; the artifact is over today\'s size limit', async () => {
    const build = await publish(svc, fixture('real-stagehand'), 'index.mts');
    assert.equal(build.status, 'FAILED');
    assert.equal(build.cause?.code, 'BUNDLE_TOO_LARGE', JSON.stringify(build.cause));
    assert.match(build.cause?.message ?? '', /^The bundle is [\d.]+ KiB gzip-compressed, over the 900\.0 KiB limit/);
    const { body } = await svc.request<{ logs: { level: string; message: string }[] }>('GET', `/v1/functions/builds/${build.id}/logs`);
    const optional = body.logs.filter((entry) => entry.level === 'warn').map((entry) => /require\("([^"]+)"\) does not resolve/.exec(entry.message)?.[1]);
    for (const name of ['encoding', 'bufferutil', 'utf-8-validate']) assert.ok(optional.includes(name), `${name} in ${JSON.stringify(optional)}`);
  });
});
