// Artifacts end to end on `serve`: an upload over BROWSERFN_MAX_ARCHIVE_BYTES is a 413 that stores
// nothing; an artifact over BROWSERFN_MAX_ARTIFACT_BYTES fails the build BUNDLE_TOO_LARGE with the
// size and the limit; the node agent fetches an artifact once and hands it from its cache to the
// next pod; a damaged chunk fails the invocation with INTERNAL_ERROR instead of running other code.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Kinds, newObject, type KubeObject } from '../../src/cluster/objects.js';
import { readArtifactManifest, chunkName } from '../../src/functions/stored/artifact-store.js';
import type { FunctionObject } from '../../src/schemas/resources.js';
import { startTestService, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { publish, invokeAndWait } from '../support/publish.js';
import { packProject } from '../../src/cli/pack.js';
import { join } from 'node:path';

const FN = (tag: string) => `
import { defineFn } from 'browserfn';
defineFn('artifact-${tag}', async () => ({ tag: '${tag}' }));
`;

describe('artifacts end to end (embedded)', function () {
  this.timeout(300_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService({ BROWSERFN_MAX_ARCHIVE_BYTES: String(150 * 1024), BROWSERFN_MAX_ARTIFACT_BYTES: String(64 * 1024) });
  });
  after(async () => {
    await svc?.stop();
  });

  const cacheCount = async (result: 'hit' | 'miss'): Promise<number> => {
    const text = await svc.metrics();
    return Number(new RegExp(`browserfn_node_artifact_cache_total\\{result="${result}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  };

  it('refuses an upload over the limit with 413 naming both sizes, storing nothing', async () => {
    const root = writeProject({ 'index.ts': FN('big'), 'data.txt': randomBytes(200 * 1024).toString('base64') });
    const packed = await packProject(join(root, 'index.ts'));
    const before = (await svc.service.cluster.resource(Kinds.ConfigMap).list('default')).items.length;
    const form = new FormData();
    form.append('metadata', JSON.stringify({ entrypoint: packed.entrypoint }));
    form.append('archive', new Blob([new Uint8Array(packed.archive)], { type: 'application/gzip' }), 'archive.tar.gz');
    const response = await svc.request('POST', '/v1/functions/builds', form);
    assert.equal(response.status, 413, JSON.stringify(response.body));
    assert.match(response.body.message, /153600/);
    assert.equal((await svc.service.cluster.resource(Kinds.ConfigMap).list('default')).items.length, before);
    assert.equal((await svc.request('GET', '/v1/functions/builds')).body.total, 0);
  });

  it('fails a build whose artifact is over the limit with BUNDLE_TOO_LARGE, stating the size and the limit', async () => {
    // Under the upload limit (150 KiB), over the artifact limit (64 KiB): an incompressible module.
    const build = await publish(svc, writeProject({ 'index.ts': `import './blob.js';\n${FN('heavy')}`, 'blob.js': `export const blob = '${randomBytes(80 * 1024).toString('base64')}';\n` }));
    assert.equal(build.status, 'FAILED');
    assert.equal(build.cause?.code, 'BUNDLE_TOO_LARGE');
    assert.match(build.cause?.message ?? '', /The artifact is \d+ bytes .* over the 65536-byte .* limit \(BROWSERFN_MAX_ARTIFACT_BYTES\)/);
  });

  it('fetches an artifact once per node: the second invocation takes it from the cache', async () => {
    const build = await publish(svc, writeProject({ 'index.ts': FN('cached') }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const fnId = build.builtFunctions![0].id;
    const [hits, misses] = [await cacheCount('hit'), await cacheCount('miss')];
    assert.deepEqual((await invokeAndWait(svc, fnId, {})).results, { tag: 'cached' });
    assert.deepEqual([await cacheCount('hit'), await cacheCount('miss')], [hits, misses + 1]);
    assert.deepEqual((await invokeAndWait(svc, fnId, {})).results, { tag: 'cached' });
    assert.deepEqual([await cacheCount('hit'), await cacheCount('miss')], [hits + 1, misses + 1]);
  });

  it('fails an invocation whose artifact chunk was damaged with INTERNAL_ERROR naming the damaged chunk', async () => {
    const build = await publish(svc, writeProject({ 'index.ts': FN('damaged') }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const fn = (await svc.service.cluster.resource<FunctionObject>(Kinds.Function).list('default')).items.find((f) => f.spec.name === 'artifact-damaged')!;
    const manifest = await readArtifactManifest(svc.service.cluster, 'default', fn.spec.version!.bundleConfigMap);
    assert.ok(manifest);
    const configMaps = svc.service.cluster.resource(Kinds.ConfigMap);
    const name = chunkName(manifest.chunks[0]);
    const original = (await configMaps.get('default', name))!;
    await configMaps.delete('default', name);
    await configMaps.create(newObject<KubeObject>(Kinds.ConfigMap, { name, namespace: 'default', labels: original.metadata.labels, ownerReferences: original.metadata.ownerReferences }, { binaryData: { chunk: randomBytes(64).toString('base64') } }));
    const result = await invokeAndWait(svc, fn.metadata.uid!, {});
    assert.equal(result.status, 'FAILED');
    assert.equal(result.cause?.code, 'INTERNAL_ERROR');
    assert.match(result.cause?.message ?? '', /is damaged: its bytes do not hash to its name/);
  });
});
