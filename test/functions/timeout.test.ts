// The invocation timeout (minimum 60 s, so this suite takes a minute): FAILED with TIMED_OUT,
// and the browser and the user process are killed.
import assert from 'node:assert/strict';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';
import { processesUnder } from '../support/processes.js';

describe('invocation timeout (embedded)', function () {
  this.timeout(240_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc?.stop());

  it('fails a handler that outlives sessionCreateParams.timeout with TIMED_OUT and kills its processes', async () => {
    const build = await publish(svc, writeProject({ 'index.ts': `import { defineFn } from 'browserfn';\ndefineFn('forever', async () => { console.log('started'); await new Promise(() => {}); });` }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const started = Date.now();
    const done = await invokeAndWait(svc, build.builtFunctions![0].id, { sessionCreateParams: { timeout: 60 } }, 200_000);
    assert.equal(done.status, 'FAILED');
    assert.equal(done.cause?.code, 'TIMED_OUT');
    assert.ok(Date.now() - started >= 60_000, 'not before the timeout');
    const { body: logs } = await svc.request('GET', `/v1/functions/invocations/${done.id}/logs`);
    assert.ok(logs.logs.some((l: { message: string }) => l.message.includes('started')));
    const session = await svc.request('GET', `/v1/sessions/${done.sessionId}`);
    assert.equal(session.body.status, 'TIMED_OUT');
    const podsDir = `${svc.dataDir}/pods`;
    await waitFor('Chromium and the handler process to be gone', async () => (processesUnder(podsDir).length === 0 ? true : undefined), 20_000);
  });
});
