// Retention end to end on `serve` (embedded store, filesystem archive), with small values: a real
// build and real invocations leave the cluster store once their TTL passes, the same GETs answer
// from the archive (byte for byte the same bodies), another project gets 404, and once retention
// passes they are 404 and the archive is empty. The store's object count returns to where it was.
// Old versions' bundles are pruned while every version stays listable.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';
import { Kinds } from '../../src/cluster/objects.js';
import { Labels, Roles } from '../../src/schemas/resources.js';

const FN = `
import { defineFn } from 'browserfn';
defineFn('retained', async (ctx, params: { tag: string }) => {
  console.log('tag is', params.tag);
  console.warn('a warning');
  return { tag: params.tag };
});
`;

const RETENTION_SECONDS = 30;
const KINDS = [Kinds.Function, Kinds.Build, Kinds.Invocation, Kinds.ConfigMap, Kinds.Pod, Kinds.Secret];

/** Every file under the archive folder, relative to it. */
function archivedFiles(svc: TestService): string[] {
  const root = join(svc.dataDir, 'artifacts');
  if (!existsSync(root)) return [];
  return (readdirSync(root, { recursive: true, withFileTypes: true }) as { isFile(): boolean; parentPath: string; name: string }[])
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort();
}

async function objectCounts(svc: TestService): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const kind of KINDS) counts[kind.kind] = (await svc.service.cluster.resource(kind).list('default')).items.length;
  return counts;
}

describe('retention (embedded, filesystem archive)', function () {
  this.timeout(300_000);
  let svc: TestService;

  afterEach(async () => {
    await svc?.stop();
  });

  it('archives finished builds and invocations after the TTL, answers from the archive, then forgets them', async () => {
    svc = await startTestService({
      BROWSERFN_FINISHED_TTL_SECONDS: '1',
      BROWSERFN_RETENTION_DAYS: String(RETENTION_SECONDS / 86_400),
      BROWSERFN_RETENTION_SWEEP_SECONDS: '1',
    });
    const build = await publish(svc, writeProject({ 'index.ts': FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const buildBody = (await svc.request('GET', `/v1/functions/builds/${build.id}`)).body;
    const buildLogs = (await svc.request('GET', `/v1/functions/builds/${build.id}/logs`)).body;
    await waitFor('the build to leave the store', async () => ((await svc.service.cluster.resource(Kinds.Build).get('default', build.id)) ? undefined : true), 30_000);
    assert.deepEqual((await svc.request('GET', `/v1/functions/builds/${build.id}`)).body, buildBody);
    assert.deepEqual((await svc.request('GET', `/v1/functions/builds/${build.id}/logs`)).body, buildLogs);
    // The build's pod goes once the node agent confirms, and its token Secret with it.
    await waitFor('the build pod and its token Secret to go', async () => {
      const counts = await objectCounts(svc);
      return counts.Pod + counts.Secret === 0 ? true : undefined;
    }, 30_000);
    const baseline = await objectCounts(svc);

    const fnId = build.builtFunctions![0].id;
    const runs = await Promise.all(['one', 'two'].map((tag) => invokeAndWait(svc, fnId, { params: { tag } })));
    const paths = (run: { id: string; sessionId: string }) => [
      `/v1/functions/invocations/${run.id}`,
      `/v1/functions/invocations/${run.id}/logs`,
      `/v1/sessions/${run.sessionId}`,
      `/v1/sessions/${run.sessionId}/logs`,
    ];
    const before = new Map<string, unknown>();
    for (const run of runs) {
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.cause));
      for (const path of paths(run)) {
        const res = await svc.request('GET', path);
        assert.equal(res.status, 200, path);
        before.set(path, res.body);
      }
    }
    assert.match(JSON.stringify(before.get(`/v1/functions/invocations/${runs[0].id}/logs`)), /tag is one/);

    await waitFor('the invocations to leave the store', async () => {
      const left = await Promise.all(runs.map((run) => svc.service.cluster.resource(Kinds.Invocation).get('default', run.id)));
      return left.every((inv) => !inv) ? true : undefined;
    }, 30_000);
    for (const [path, body] of before) assert.deepEqual((await svc.request('GET', path)).body, body, `${path} answers as before, from the archive`);
    for (const path of paths(runs[0])) assert.equal((await svc.request('GET', path, undefined, { 'x-svc-api-key': 'other-key' })).status, 404, `another project: ${path}`);
    // Pods, their token Secrets and the outcomes went with their Invocations.
    await waitFor('the store to hold what it held before the invocations', async () => (JSON.stringify(await objectCounts(svc)) === JSON.stringify(baseline) ? true : undefined), 30_000);
    assert.deepEqual(archivedFiles(svc), [
      `builds/default/${build.id}.json`,
      ...runs.map((r) => `invocations/default/${r.id}.json`).sort(),
      ...runs.map((r) => `sessions/default/${r.sessionId}.json`).sort(),
    ]);

    // Each record's retention runs from its own end, so the later invocation goes a little later.
    await waitFor('retention to pass', async () => ((await Promise.all(runs.map(async (run) => (await svc.request('GET', paths(run)[0])).status))).every((s) => s === 404) ? true : undefined), (RETENTION_SECONDS + 30) * 1000, 500);
    for (const run of runs) for (const path of paths(run)) assert.equal((await svc.request('GET', path)).status, 404, path);
    assert.equal((await svc.request('GET', `/v1/functions/builds/${build.id}`)).status, 404);
    await waitFor('the sweep to empty the archive', async () => (archivedFiles(svc).length === 0 ? true : undefined), 60_000, 500);
    assert.deepEqual(await objectCounts(svc), baseline);
    const metrics = await svc.metrics();
    assert.match(metrics, /browserfn_retention_actions_total\{action="archived-build"\} 1\n/);
    assert.match(metrics, /browserfn_retention_actions_total\{action="archived-invocation"\} 2\n/);
    assert.match(metrics, /browserfn_retention_actions_total\{action="swept"\} 5\n/);
  });

  it('prunes the bundles of versions beyond the newest N; every version stays listable and the current one runs', async () => {
    svc = await startTestService({ BROWSERFN_KEEP_VERSIONS: '1' });
    let fnId = '';
    for (const tag of ['v1', 'v2', 'v3']) {
      const build = await publish(svc, writeProject({ 'index.ts': FN.replace('tag is', `${tag}: tag is`) }));
      assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
      fnId = build.builtFunctions![0].id;
    }
    const bundles = async () =>
      (await svc.service.cluster.resource(Kinds.ConfigMap).list('default', { labelSelector: `${Labels.role}=${Roles.artifact}` })).items
        .map((cm) => cm.metadata.name)
        .filter((name) => name.startsWith('artifact-'));
    await waitFor('old bundles to be pruned', async () => ((await bundles()).length === 1 ? true : undefined), 30_000);
    assert.match(await svc.metrics(), /browserfn_retention_actions_total\{action="pruned-bundle"\} 2\n/);
    const versions = await svc.request('GET', `/v1/functions/${fnId}/versions`);
    assert.equal(versions.status, 200);
    const listed = versions.body.results as { version: number }[];
    assert.deepEqual(listed.map((v) => v.version).sort(), [1, 2, 3]);
    const run = await invokeAndWait(svc, fnId, { params: { tag: 'after-pruning' } });
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run.cause));
  });
});
