// Each project's share of the façade (src/api/request-rate.ts): a token bucket of API requests per
// project, ten seconds' worth at once, refilled at its rate (a fake clock, so nothing waits); and on
// the real `serve` stack, a project past it gets 429 with Retry-After and the error body while
// another project, the health probe and the pods' own routes are served.
import assert from 'node:assert/strict';
import { HttpError } from '../../src/api/http-error.js';
import { ProjectRequestRate } from '../../src/api/request-rate.js';
import { loadSettings } from '../../src/config/settings.js';
import { startTestService, type TestService } from '../support/service.js';

describe('API requests per project', () => {
  it('admits ten seconds\' worth at once, then as many a second as the rate, each project on its own', () => {
    let now = 0;
    const rate = new ProjectRequestRate(2, () => now);
    for (let i = 0; i < 20; i += 1) rate.take('a');
    assert.throws(() => rate.take('a'), (err: HttpError) => err.status === 429 && err.headers['retry-after'] === '1' && /project a may make 2 API requests a second \(BROWSERFN_API_RATE_PER_PROJECT\), 20 at once; try again in 1 s/.test(err.message));
    rate.take('b');
    now += 500;
    rate.take('a');
    assert.throws(() => rate.take('a'), /try again in 1 s/);
    now += 10_000;
    for (let i = 0; i < 20; i += 1) rate.take('a');
    assert.throws(() => rate.take('a'), 'refilled to ten seconds\' worth, no more');
  });

  it('admits everything with the rate at 0, and reads BROWSERFN_API_RATE_PER_PROJECT (100 unless set)', () => {
    const unlimited = new ProjectRequestRate(0, () => 0);
    for (let i = 0; i < 10_000; i += 1) unlimited.take('a');
    assert.equal(loadSettings({ dataDir: '/tmp/x', env: { BROWSERFN_API_KEY: 'k' } }).apiRatePerProject, 100);
    assert.equal(loadSettings({ dataDir: '/tmp/x', env: { BROWSERFN_API_KEY: 'k', BROWSERFN_API_RATE_PER_PROJECT: '0' } }).apiRatePerProject, 0);
    assert.throws(() => loadSettings({ dataDir: '/tmp/x', env: { BROWSERFN_API_KEY: 'k', BROWSERFN_API_RATE_PER_PROJECT: 'fast' } }), /BROWSERFN_API_RATE_PER_PROJECT/);
  });

  describe('on serve', function () {
    this.timeout(120_000);
    let svc: TestService;
    before(async () => {
      svc = await startTestService({ BROWSERFN_API_RATE_PER_PROJECT: '1' });
    });
    after(async () => {
      await svc?.stop();
    });

    it('answers a project past its rate 429 with Retry-After, and serves another project, the probes and the pods\' routes meanwhile', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i += 1) statuses.push((await svc.request('GET', '/v1/functions')).status);
      assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
      const res = await fetch(`${svc.url}/v1/functions`, { headers: { 'x-svc-api-key': svc.apiKey } });
      assert.equal(res.status, 429);
      assert.equal(res.headers.get('retry-after'), '1');
      const body = (await res.json()) as { statusCode: number; error: string; message: string };
      assert.equal(body.statusCode, 429);
      assert.match(body.message, /project default may make 1 API requests a second/);
      assert.equal((await svc.request('GET', '/v1/functions', undefined, { 'x-svc-api-key': 'other-key' })).status, 200, 'another project');
      assert.equal((await fetch(`${svc.url}/healthz`)).status, 200);
      // A pod's route answers for its token, not a project's key: refused for the missing token, not the rate.
      assert.equal((await fetch(`${svc.url}/internal/v1/pods/default/p/input`)).status, 401);
    });
  });
});
