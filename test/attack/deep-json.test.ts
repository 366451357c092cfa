// attack: JSON nested deep enough to overflow recursive code. Request bodies are refused with a 400
// before any of it runs; a handler's deep result fails its invocation with a message; a recorded
// session over its cap still reports (its cut marker is itself a session event).
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';
import { MAX_NESTING_DEPTH } from '../../src/api/body.js';
import { MAX_RESULTS_NESTING, OUTCOME_LIMITS, SESSION_LOG_DROPPED_METHOD } from '../../src/schemas/report-limits.js';

/** `{"params":{"a":[[…1…]]}}`-style JSON text, written out: JSON.stringify itself overflows on such depths. */
const nestedJson = (depth: number): string => '['.repeat(depth) + '1' + ']'.repeat(depth);

describe('attack: deeply nested JSON', function () {
  this.timeout(180_000);
  let svc: TestService;
  let fnId: string;

  before(async () => {
    svc = await startTestService();
    const build = await publish(
      svc,
      writeProject({
        'index.ts': `import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';
defineFn('deep', async (ctx, params: { depth?: number; events?: number }) => {
  if (params.events) {
    // Enough page console events to take the recorded session past its cap.
    const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
    const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
    await page.evaluate((n) => { for (let i = 0; i < n; i++) console.log('event', i, 'x'.repeat(400)); }, params.events);
    await browser.close();
    return { logged: params.events };
  }
  let value: unknown = 'leaf';
  for (let i = 0; i < (params.depth ?? 1); i++) value = [value];
  return value;
});`,
      }),
    );
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    fnId = build.builtFunctions![0].id;
  });
  after(async () => svc?.stop());

  for (const depth of [MAX_NESTING_DEPTH + 1, 3000, 30_000]) {
    it(`refuses params nested ${depth} levels deep with a 400, and the service goes on`, async () => {
      const response = await svc.request('POST', `/v1/functions/${fnId}/invoke`, `{"params":{"a":${nestedJson(depth)}}}`);
      assert.equal(response.status, 400, JSON.stringify(response.body).slice(0, 300));
      assert.match(response.body.message, /nests objects and arrays more than 100 levels deep/);
    });
  }

  it('refuses deeply nested sessionCreateParams with a 400', async () => {
    const response = await svc.request('POST', `/v1/functions/${fnId}/invoke`, `{"sessionCreateParams":{"browserSettings":{"a":${nestedJson(20_000)}}}}`);
    assert.equal(response.status, 400);
  });

  it('still accepts params nested within the limit', async () => {
    const response = await svc.request('POST', `/v1/functions/${fnId}/invoke`, `{"params":{"a":${nestedJson(MAX_NESTING_DEPTH - 3)}}}`);
    assert.equal(response.status, 202, JSON.stringify(response.body).slice(0, 300));
  });

  it('fails an invocation whose handler returns deeply nested JSON, saying why', async () => {
    const done = await invokeAndWait(svc, fnId, { params: { depth: MAX_RESULTS_NESTING + 50 } });
    assert.equal(done.status, 'FAILED');
    assert.equal(done.cause?.code, 'WORKLOAD_ERROR');
    assert.match(done.cause?.message ?? '', new RegExp(`nested more than ${MAX_RESULTS_NESTING} levels deep`));
    const ok = await invokeAndWait(svc, fnId, { params: { depth: 10 } });
    assert.equal(ok.status, 'COMPLETED', JSON.stringify(ok.cause));
  });

  it('completes an invocation whose recorded session passes its cap: its first events kept whole, then a marker counting the rest', async () => {
    const done = await invokeAndWait(svc, fnId, { params: { events: 1500 } });
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    const { body } = await svc.request('GET', `/v1/sessions/${done.sessionId}/logs`);
    const entries = body as { method: string; params: { args?: { value?: unknown }[]; droppedEvents?: number } }[];
    const marker = entries.at(-1)!;
    assert.equal(marker.method, 'browserfn.sessionLogTruncated', `${entries.length} entries, last: ${JSON.stringify(marker ?? null).slice(0, 300)}`);
    assert.ok(!entries.some((entry) => entry.method === SESSION_LOG_DROPPED_METHOD), 'nothing cut from the start');
    const logged = entries.filter((entry) => entry.method === 'Runtime.consoleAPICalled').map((entry) => entry.params.args?.[1]?.value);
    assert.deepEqual(logged, logged.map((_, i) => i), 'the console events kept are the first ones, in order');
    assert.ok(logged.length + marker.params.droppedEvents! >= 1500, JSON.stringify(marker.params));
    assert.ok(Buffer.byteLength(JSON.stringify(entries)) <= OUTCOME_LIMITS.sessionLogsBytes);
  });
});
