// A project's waiting invocations are capped: over BROWSERFN_MAX_QUEUED_INVOCATIONS_PER_PROJECT,
// invoke answers 429 with Retry-After and stores nothing; other projects are not affected. The
// façade runs alone (no controllers), so every accepted invocation stays waiting.
import assert from 'node:assert/strict';
import { Kinds } from '../../src/cluster/objects.js';
import { createBuild } from '../../src/functions/builds.js';
import { publishVersion } from '../../src/functions/versions.js';
import { tarGz } from '../build/project-archive.js';
import { startApiOnly, type ApiOnlyService } from '../support/api-only.js';

describe('per-project invocation queue cap', function () {
  this.timeout(60_000);
  let api: ApiOnlyService;
  const functionIds: Record<string, string> = {};

  before(async () => {
    api = await startApiOnly({ BROWSERFN_MAX_QUEUED_INVOCATIONS_PER_PROJECT: '3' });
    for (const project of ['default', 'other']) {
      const build = await createBuild(api.service.cluster, project, { entrypoint: 'index.ts' }, tarGz([{ path: 'index.ts', content: 'export {};\n' }]));
      functionIds[project] = (await publishVersion(api.service.cluster, build, { name: 'queued' }, `${build.metadata.name}-bundle`)).id;
    }
  });
  after(async () => {
    await api?.stop();
  });

  const waiting = async (project: string) => (await api.service.cluster.resource(Kinds.Invocation).list(project)).items.length;

  it('accepts up to the cap, then answers 429 with Retry-After and a message, storing nothing', async () => {
    for (let i = 0; i < 3; i += 1) {
      const accepted = await api.request('POST', `/v1/functions/${functionIds.default}/invoke`, { params: { i } });
      assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    }
    const response = await fetch(`${api.url}/v1/functions/${functionIds.default}/invoke`, {
      method: 'POST',
      headers: { 'x-svc-api-key': api.apiKey, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(response.status, 429);
    assert.equal(response.headers.get('retry-after'), '30');
    const body = (await response.json()) as { statusCode: number; error: string; message: string };
    assert.equal(body.statusCode, 429);
    assert.equal(body.error, 'Too Many Requests');
    assert.match(body.message, /has 3 invocations waiting to start, the most it may have \(BROWSERFN_MAX_QUEUED_INVOCATIONS_PER_PROJECT=3\)/);
    assert.equal(await waiting('default'), 3);
  });

  it("leaves another project's queue alone", async () => {
    const response = await api.request('POST', `/v1/functions/${functionIds.other}/invoke`, {}, { 'x-svc-api-key': api.otherApiKey });
    assert.equal(response.status, 202, JSON.stringify(response.body));
    assert.equal(await waiting('other'), 1);
  });

  it('refuses a cap that is not a positive integer at start', () => {
    return assert.rejects(startApiOnly({ BROWSERFN_MAX_QUEUED_INVOCATIONS_PER_PROJECT: '0' }), /BROWSERFN_MAX_QUEUED_INVOCATIONS_PER_PROJECT/);
  });
});
