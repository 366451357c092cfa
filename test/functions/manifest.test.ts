// A hand-written Function manifest (what `kubectl apply -f deploy/examples/function-inline.yaml`
// creates), applied through the cluster port: the controller builds its source, and the façade
// lists and invokes it like a published Function.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Kinds } from '../../src/cluster/objects.js';
import type { FunctionObject } from '../../src/schemas/resources.js';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { startPageServer, type PageServer } from '../support/http-fixtures.js';
import { invokeAndWait } from '../support/publish.js';

const EXAMPLE = fileURLToPath(new URL('../../../deploy/examples/function-inline.yaml', import.meta.url));

describe('hand-written Function manifests (embedded)', function () {
  this.timeout(180_000);
  let svc: TestService;
  let pages: PageServer;
  const functions = () => svc.service.cluster.resource<FunctionObject>(Kinds.Function);
  const readyOf = (fn: FunctionObject | undefined) => fn?.status?.conditions?.find((c) => c.type === 'Ready');

  before(async () => {
    svc = await startTestService();
    pages = await startPageServer();
  });
  after(async () => {
    await svc?.stop();
    await pages?.close();
  });

  it('builds the inline source of deploy/examples/function-inline.yaml and serves it through the API', async () => {
    const manifest = parse(readFileSync(EXAMPLE, 'utf8')) as FunctionObject;
    const created = await functions().create({ ...manifest, metadata: { ...manifest.metadata, namespace: 'default' } });
    const ready = await waitFor('the Function to be Ready', async () => {
      const fn = await functions().get('default', created.metadata.name);
      return readyOf(fn)?.status === 'True' ? fn : readyOf(fn)?.status === 'False' ? fn : undefined;
    }, 120_000, 200);
    assert.equal(readyOf(ready)?.status, 'True', JSON.stringify(ready?.status));
    assert.equal(ready!.status?.currentVersion, 1);
    assert.equal(ready!.status?.observedGeneration, ready!.metadata.generation);

    const listed = await svc.request('GET', '/v1/functions');
    const view = listed.body.data.find((f: { name: string }) => f.name === 'page-title');
    assert.equal(view.id, created.metadata.uid);
    const done = await invokeAndWait(svc, view.id, { params: { url: `${pages.url}/manifest` } });
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    assert.equal((done.results as { title: string }).title, 'Test page /manifest');
  });

  it('reports a source that does not build as Ready=False with the build cause, and rebuilds when the source changes', async () => {
    const created = await functions().create({
      apiVersion: 'browserfn.dev/v1alpha1',
      kind: 'Function',
      metadata: { name: 'broken', namespace: 'default' },
      spec: { name: 'broken', source: { inline: `import { defineFn } from 'browserfn';\ndefineFn('other-name', async () => 1);` } },
    });
    const failed = await waitFor('the build to fail', async () => {
      const fn = await functions().get('default', created.metadata.name);
      return readyOf(fn)?.status === 'False' && readyOf(fn)?.reason === 'BuildFailed' ? fn : undefined;
    }, 120_000, 200);
    assert.match(readyOf(failed)!.message ?? '', /does not define "broken"/);

    const fixed = { ...failed!, spec: { ...failed!.spec, source: { inline: `import { defineFn } from 'browserfn';\ndefineFn('broken', async () => 'fixed');` } } };
    await functions().update(fixed);
    const rebuilt = await waitFor('the fixed source to build', async () => {
      const fn = await functions().get('default', created.metadata.name);
      return readyOf(fn)?.status === 'True' ? fn : undefined;
    }, 120_000, 200);
    const done = await invokeAndWait(svc, rebuilt!.metadata.uid!, {});
    assert.equal(done.results, 'fixed');
  });
});
