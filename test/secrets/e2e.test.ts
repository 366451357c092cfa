// End to end on the real stack (`browserfn serve` in-process, build and browser pods as processes):
// a handler reads attached secrets as ctx.secrets from its next invocation on, and the value shows
// up in no API response, invocation log or session log, nor in the service's own log at debug level
// (the server, the controllers, the node agent and, forwarded by it, every pod's own output).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';
import { leakedForms, sealBound, sealCompat, secretValueFor } from './harness.js';
import { Kinds } from '../../src/cluster/objects.js';

const READER = `
import { defineFn } from 'browserfn';
import { createHash } from 'node:crypto';

defineFn('secret-reader', async (ctx) => {
  const token = ctx.secrets.API_TOKEN;
  console.log('the token is', token);
  return {
    keys: Object.keys(ctx.secrets).sort(),
    tokenSha256: token === undefined ? null : createHash('sha256').update(token).digest('hex'),
    otherSha256: ctx.secrets.OTHER === undefined ? null : createHash('sha256').update(ctx.secrets.OTHER).digest('hex'),
  };
});
`;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('secrets reach handlers as ctx.secrets (end to end)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let fnId: string;

  before(async () => {
    svc = await startTestService({}, { captureLog: true });
    const build = await publish(svc, writeProject({ 'index.ts': READER }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    fnId = build.builtFunctions!.find((f) => f.name === 'secret-reader')!.id;
  });
  after(async () => svc?.stop());

  it('attach, rotate and detach take effect from the next invocation; values never come back', async () => {
    const responses: string[] = [];
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await svc.request(method, path, body);
      responses.push(JSON.stringify(res.body ?? null));
      return res;
    };
    const keypair = (await call('GET', '/v1/secrets/keypair')).body;
    const token = secretValueFor('e2e-token');
    const other = `other "quoted" & spaced ${secretValueFor('e2e-other')}`;
    const rotated = secretValueFor('e2e-rotated');
    const tokenSecret = (await call('POST', '/v1/secrets', { secretKey: 'API_TOKEN', keypairId: keypair.id, sealedSecretValue: await sealCompat(keypair.publicKey, token) })).body;
    const otherSecret = (await call('POST', '/v1/secrets', { secretKey: 'OTHER', ...(await sealBound(keypair.publicKey, keypair.projectId, 'OTHER', other)) })).body;

    const none = await invokeAndWait(svc, fnId, { params: {} });
    assert.equal(none.status, 'COMPLETED', JSON.stringify(none.cause));
    assert.deepEqual(none.results, { keys: [], tokenSha256: null, otherSha256: null });

    assert.equal((await call('POST', `/v1/functions/${fnId}/secrets`, { secretId: tokenSecret.id })).status, 204);
    assert.equal((await call('POST', `/v1/functions/${fnId}/secrets`, { secretId: otherSecret.id })).status, 204);
    const both = await invokeAndWait(svc, fnId, { params: {} });
    assert.equal(both.status, 'COMPLETED', JSON.stringify(both.cause));
    assert.deepEqual(both.results, { keys: ['API_TOKEN', 'OTHER'], tokenSha256: sha256(token), otherSha256: sha256(other) });

    // The handler printed the token: the invocation log has it redacted.
    const logs = (await call('GET', `/v1/functions/invocations/${both.id}/logs`)).body;
    const line = logs.logs.find((l: { message: string }) => l.message.startsWith('the token is'));
    assert.ok(line, JSON.stringify(logs));
    assert.ok(!line.message.includes(token));
    await call('GET', `/v1/functions/invocations/${both.id}`);
    await call('GET', `/v1/sessions/${both.sessionId}/logs`);
    await call('GET', `/v1/functions/${fnId}/secrets`);

    await call('PATCH', `/v1/secrets/${tokenSecret.id}`, { sealedSecretValue: await sealCompat(keypair.publicKey, rotated) });
    assert.equal((await call('DELETE', `/v1/functions/${fnId}/secrets/${otherSecret.id}`)).status, 204);
    const after = await invokeAndWait(svc, fnId, { params: {} });
    assert.deepEqual(after.results, { keys: ['API_TOKEN'], tokenSha256: sha256(rotated), otherSha256: null });
    await call('GET', `/v1/functions/invocations/${after.id}/logs`);
    await call('GET', `/v1/functions/invocations/${after.id}`);

    const seen = responses.join('\n');
    for (const value of [token, other, rotated]) {
      for (const form of leakedForms(value)) assert.ok(!seen.includes(form), 'a value came back in a response');
    }
    // The service's log was captured down to each pod's forwarded output, yet holds no value.
    const logText = svc.logLines.join('\n');
    for (const event of ['pod output', 'invocation ended', 'function process started']) assert.ok(logText.includes(event), `the log has "${event}"`);
    for (const value of [token, other, rotated]) {
      for (const form of leakedForms(value)) assert.ok(!logText.includes(form), `a value is in the service's log: ${svc.logLines.find((line) => line.includes(form))?.slice(0, 400)}`);
    }
    // Invocation objects keep no value either.
    const stored = JSON.stringify(await svc.service.cluster.resource(Kinds.Invocation).list('default'));
    for (const value of [token, other, rotated]) assert.ok(!stored.includes(value), 'a value is in an Invocation object');
  });
});
