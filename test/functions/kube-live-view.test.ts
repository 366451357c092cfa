// Live view across two API replicas on a real kube-apiserver: the pod's channel reaches replica A
// (its control URL), and a viewer who lands on replica B gets the live URLs, the DevTools files,
// CDP (view-only enforced) and the metrics through A. The routes replicas use refuse anything but a
// replica token, and everything of the session closes on both replicas when it ends.
import assert from 'node:assert/strict';
import Browserbase from '@browserbasehq/sdk';
import { Kinds } from '../../src/cluster/objects.js';
import { issueLiveToken } from '../../src/api/live-view/live-token.js';
import { Annotations, type InvocationObject } from '../../src/schemas/resources.js';
import type { RunningService } from '../../src/server/service.js';
import { kubeProject, type KubeProject } from '../support/kube-project.js';
import { startHoldServer, type HoldServer } from '../support/hold-server.js';
import { startPageServer, type PageServer } from '../support/http-fixtures.js';
import { cdp, LIVE_FN, pageSocketOf, refusedStatus } from '../support/live-view.js';
import { writeProject } from '../support/projects.js';
import { publish, waitInvocation } from '../support/publish.js';
import { waitFor } from '../support/service.js';

describe('live view across API replicas on a real kube-apiserver', function () {
  this.timeout(600_000);
  let kube: KubeProject;
  let holder: RunningService;
  let other: RunningService;
  let hold: HoldServer;
  let pages: PageServer;

  before(async function () {
    const made = await kubeProject('live');
    if ('skip' in made) {
      console.warn(`\n*** SKIPPING the Kubernetes live-view suite: ${made.skip} ***\n`);
      this.skip();
    }
    kube = made as KubeProject;
    hold = await startHoldServer();
    pages = await startPageServer();
    // Both replicas know their address, as the chart's downward API tells them.
    const replica = { BROWSERFN_POD_IP: '127.0.0.1' };
    holder = await kube.start({ api: true, nodeAgent: true }, { env: replica });
    other = await kube.start({ api: true }, { env: replica });
    // Pods report to (and dial their live channel to) replica A only.
    await kube.start({ controllers: true, leaseNamespace: kube.project, podNodeName: kube.nodeName }, { env: { BROWSERFN_CONTROL_URL: holder.url } });
  });

  after(async () => {
    hold?.release();
    await hold?.close();
    await pages?.close();
    await kube?.cleanUp();
  });

  it('serves the live view and metrics of a session whose pod dialled the other replica, and closes them when it ends', async () => {
    const viaA = kube.client(() => holder.url);
    const viaB = kube.client(() => other.url);
    const build = await publish(viaA, writeProject({ 'index.ts': LIVE_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const created = await viaB.request('POST', `/v1/functions/${build.builtFunctions![0].id}/invoke`, { params: { page: `${pages.url}/live`, hold: hold.url } });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const { id: invocationId, sessionId } = created.body as { id: string; sessionId: string };
    await hold.arrived(1);
    const invocations = holder.cluster.resource<InvocationObject>(Kinds.Invocation);
    await waitFor('replica A to record that it holds the channel', async () => ((await invocations.get(kube.project, invocationId))?.metadata.annotations?.[Annotations.liveReplica]?.startsWith(`${holder.url} `) ? true : undefined), 60_000, 100);

    // The unmodified SDK against replica B: every URL is B's own, and works through A.
    const bb = new Browserbase({ apiKey: kube.apiKey, baseURL: other.url });
    const live = await bb.sessions.debug(sessionId);
    const page = live.pages.find((p) => p.url === `${pages.url}/live`);
    assert.ok(page, `the handler's page is listed through B: ${JSON.stringify(live.pages)}`);
    assert.equal(new URL(page.debuggerUrl).origin, other.url);
    const inspector = await fetch(page.debuggerUrl);
    assert.equal(inspector.status, 200);
    assert.match(await inspector.text(), /<title>DevTools<\/title>/);
    const script = await fetch(new URL('entrypoints/inspector/inspector.js', page.debuggerUrl));
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);

    const pageClient = await cdp(pageSocketOf(page.debuggerUrl));
    const title = await pageClient.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true });
    assert.equal(title.result.result.value, 'Test page /live');

    const watching = await viaB.request('GET', `/v1/sessions/${sessionId}/debug?viewOnly=true`);
    assert.equal(watching.status, 200, JSON.stringify(watching.body));
    const watcher = await cdp(pageSocketOf(watching.body.pages[0].debuggerUrl));
    assert.ok((await watcher.send('DOM.getDocument')).result, 'a view-only viewer reads the DOM through B');
    const refused = await watcher.send('Runtime.evaluate', { expression: '1' });
    assert.match(refused.error?.message ?? '', /not allowed in a view-only live view/);

    const metrics = await viaB.request('GET', `/v1/sessions/${sessionId}/metrics`);
    assert.equal(metrics.status, 200, JSON.stringify(metrics.body));
    assert.equal(metrics.body.live, true);

    // Replicas' own routes: a replica token of this session only, never a viewer's.
    const viewerToken = new URL(page.debuggerUrl).pathname.split('/')[5]!;
    const replicaToken = issueLiveToken(kube.env.BROWSERFN_POD_TOKEN_SECRET, { project: kube.project, sessionId, viewOnly: true, exp: Date.now() + 60_000 }, 'replica');
    const listAt = (base: string) => `${base}/internal/v1/live/${sessionId}/http?path=${encodeURIComponent('/json/list')}`;
    assert.equal((await fetch(listAt(holder.url))).status, 401);
    assert.equal((await fetch(listAt(holder.url), { headers: { authorization: `Bearer ${viewerToken}` } })).status, 401);
    assert.equal((await fetch(`${holder.url}/internal/v1/live/${sessionId}/metrics`, { headers: { authorization: `Bearer ${viewerToken}` } })).status, 401);
    assert.equal((await fetch(listAt(holder.url), { headers: { authorization: `Bearer ${replicaToken}` } })).status, 200);
    assert.equal((await fetch(listAt(other.url), { headers: { authorization: `Bearer ${replicaToken}` } })).status, 404, 'a replica answers only from a channel it holds');
    const badPath = `${holder.url}/internal/v1/live/${sessionId}/http?path=${encodeURIComponent('/json/new?http://example.com')}`;
    assert.equal((await fetch(badPath, { headers: { authorization: `Bearer ${replicaToken}` } })).status, 404);
    assert.equal(await refusedStatus(`${holder.url.replace('http', 'ws')}/internal/v1/live/${sessionId}/ws?path=${encodeURIComponent(new URL(pageSocketOf(page.debuggerUrl)).pathname.replace(/^.*\/devtools\//, '/devtools/'))}`), 401);

    hold.release();
    assert.equal((await waitInvocation(viaB, invocationId)).status, 'COMPLETED');
    await Promise.all([pageClient.closed, watcher.closed]);
    assert.equal((await fetch(page.debuggerUrl)).status, 404, 'B refuses the live URLs once the session ended');
    await assert.rejects(bb.sessions.debug(sessionId), (err: { status?: number }) => err.status === 409);
  });
});
