// Publish → invoke → results on a real kube-apiserver (built from Go modules by
// scripts/controlplane), with the same controllers as `serve`, the façade, and the local node
// agent registered as a Node running the pods bound to it. Also: an operator restart in the
// middle of an invocation, and two operator replicas handing the Lease over.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Kinds } from '../../src/cluster/objects.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { POD_GRACE_SECONDS } from '../../src/schemas/deadlines.js';
import type { RunningService, ServiceOptions } from '../../src/server/service.js';
import { kubectl } from '../support/controlplane.js';
import { kubeProject, type KubeProject } from '../support/kube-project.js';
import { startHoldServer, type HoldServer } from '../support/hold-server.js';
import { writeProject } from '../support/projects.js';
import { publish, waitInvocation } from '../support/publish.js';
import { waitFor } from '../support/service.js';

const EXAMPLE = fileURLToPath(new URL('../../../deploy/examples/function-inline.yaml', import.meta.url));

const HOLD_FN = `
import { defineFn } from 'browserfn';
defineFn('wait-for-release', async (ctx, params: { url: string; tag: string }) => {
  console.log('waiting for', params.tag);
  const res = await fetch(params.url + '/' + params.tag);
  return { tag: params.tag, answer: await res.text(), session: ctx.session.id };
});
`;

describe('functions end to end on a real kube-apiserver', function () {
  this.timeout(600_000);
  let kube: KubeProject;
  let project: string;
  let nodeName: string;
  let api: RunningService;
  let hold: HoldServer;
  let fnId: string;

  // Cold pods here (the restart test inspects the invocation's own pod); one test turns the pool on.
  const start = (parts: Partial<ServiceOptions>, env: Record<string, string> = {}) => kube.start(parts, { env });
  const stopService = (service: RunningService) => kube.stopService(service);
  const client = () => kube.client(() => api.url);

  before(async function () {
    const made = await kubeProject('e2e');
    if ('skip' in made) {
      console.warn(`\n*** SKIPPING the Kubernetes end-to-end suite: ${made.skip} ***\n`);
      this.skip();
    }
    kube = made as KubeProject;
    ({ project, nodeName } = kube);
    hold = await startHoldServer();
    // The façade and the node agent in one process; controllers come and go in others below.
    api = await start({ api: true, nodeAgent: true });
  });

  after(async () => {
    hold?.release();
    await hold?.close();
    await kube?.cleanUp();
  });

  it('publishes and invokes through the façade; objects, pods and the node are real API objects', async () => {
    const operator = await start({ controllers: true, leaseNamespace: project, podNodeName: nodeName }, { BROWSERFN_CONTROL_URL: api.url });
    try {
      await publishAndInvoke(operator);
    } finally {
      await stopService(operator);
    }
  });

  async function publishAndInvoke(operator: RunningService): Promise<void> {
    await waitFor('the operator to lead', async () => (operator.manager?.isLeader ? true : undefined), 60_000);

    const build = await publish(client(), writeProject({ 'index.ts': HOLD_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    fnId = build.builtFunctions![0].id;

    const fns = await kubectl(['get', 'functions.browserfn.dev', '-n', project, '-o', 'json']);
    assert.equal(fns.code, 0, fns.stderr);
    assert.equal(JSON.parse(fns.stdout).items[0].metadata.uid, fnId, 'the Function ID is the custom resource uid');

    hold.release();
    const created = await client().request('POST', `/v1/functions/${fnId}/invoke`, { params: { url: hold.url, tag: 'first' } });
    assert.equal(created.status, 202);
    const done = await waitInvocation(client(), created.body.id, 120_000);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    assert.deepEqual((done.results as { tag: string; answer: string }).tag, 'first');

    const inv = await kubectl(['get', 'invocations.browserfn.dev', created.body.id, '-n', project, '-o', 'json']);
    assert.equal(JSON.parse(inv.stdout).status.phase, 'COMPLETED');
    const node = await kubectl(['get', 'node', nodeName, '-o', 'json']);
    assert.equal(JSON.parse(node.stdout).status.conditions[0].status, 'True', 'the node agent registered as a Ready node');
    await waitFor('the browser pod to be deleted', async () => {
      const pods = await api.cluster.resource(Kinds.Pod).list(project, { labelSelector: `browserfn.dev/invocation=${created.body.id}` });
      return pods.items.length === 0 ? true : undefined;
    }, 60_000, 200);
    const logs = await client().request('GET', `/v1/functions/invocations/${created.body.id}/logs`);
    assert.ok(logs.body.logs.some((l: { message: string }) => l.message.includes('waiting for first')), 'logs are durable in the API server');
  }

  it('kubectl apply of deploy/examples/function-inline.yaml makes a Function the façade lists and invokes', async () => {
    const operator = await start({ controllers: true, leaseNamespace: project, podNodeName: nodeName }, { BROWSERFN_CONTROL_URL: api.url });
    try {
      const applied = await kubectl(['apply', '-n', project, '-f', EXAMPLE]);
      assert.equal(applied.code, 0, applied.stderr);
      const fn = await waitFor('the hand-written Function to be listed', async () => {
        const { body } = await client().request('GET', '/v1/functions');
        return body.data.find((f: { name: string; currentVersionId: string | null }) => f.name === 'page-title' && f.currentVersionId);
      }, 120_000, 250);
      const ready = await kubectl(['get', 'functions.browserfn.dev', 'page-title', '-n', project, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']);
      assert.equal(ready.stdout, 'True');
      const created = await client().request('POST', `/v1/functions/${fn.id}/invoke`, {});
      assert.equal(created.status, 202);
      const done = await waitInvocation(client(), created.body.id, 120_000);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
      assert.equal((done.results as { url: string }).url, 'about:blank');
    } finally {
      await stopService(operator);
    }
  });

  it('keeps a warm pool on the API server and runs an invocation on a claimed member', async () => {
    const operator = await start({ controllers: true, leaseNamespace: project, podNodeName: nodeName }, { BROWSERFN_CONTROL_URL: api.url, BROWSERFN_WARM_POOL_SIZE: '1', BROWSERFN_WARM_POOL_MAX: '1' });
    try {
      await waitFor('a ready member of the default pool', async () => {
        const pool = await kubectl(['get', 'browserpools.browserfn.dev', 'default', '-n', project, '-o', 'jsonpath={.status.ready}']);
        return pool.stdout === '1' ? true : undefined;
      }, 120_000, 250);
      const columns = await kubectl(['get', 'bfnpool', '-n', project]);
      assert.match(columns.stdout.split('\n')[0], /NAME\s+MIN\s+MAX\s+DESIRED\s+READY\s+CLAIMED\s+AGE/);
      hold.release();
      const created = await client().request('POST', `/v1/functions/${fnId}/invoke`, { params: { url: hold.url, tag: 'warm' } });
      assert.equal(created.status, 202);
      const done = await waitInvocation(client(), created.body.id, 120_000);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
      const inv = JSON.parse((await kubectl(['get', 'invocations.browserfn.dev', created.body.id, '-n', project, '-o', 'json'])).stdout);
      assert.match(inv.status.podName, /^default-[0-9a-f]{8}$/, 'it ran on a member of the default pool');
      await waitFor('the pool to refill', async () => {
        const pool = await kubectl(['get', 'browserpools.browserfn.dev', 'default', '-n', project, '-o', 'json']);
        const { status } = JSON.parse(pool.stdout);
        return status.ready === 1 && status.claimed === 0 ? true : undefined;
      }, 120_000, 250);
    } finally {
      await stopService(operator);
    }
    // Cold pods again for the tests below: the default pool goes with its settings at size 0.
    const cold = await start({ controllers: true, leaseNamespace: project, podNodeName: nodeName }, { BROWSERFN_CONTROL_URL: api.url });
    try {
      await waitFor('the default pool removed', async () => ((await kubectl(['get', 'browserpools.browserfn.dev', '-n', project, '-o', 'name'])).stdout.trim() === '' ? true : undefined), 60_000, 250);
      await waitFor('its members gone', async () => {
        const pods = await api.cluster.resource(Kinds.Pod).list(project, { labelSelector: 'browserfn.dev/pool' });
        return pods.items.length === 0 ? true : undefined;
      }, 120_000, 250);
    } finally {
      await stopService(cold);
    }
  });

  it('finishes an invocation across an operator restart, and hands the Lease from one replica to another', async () => {
    const first = await start({ controllers: true, leaseNamespace: project, podNodeName: nodeName }, { BROWSERFN_CONTROL_URL: api.url });
    await waitFor('replica 1 to lead', async () => (first.manager?.isLeader ? true : undefined), 60_000);
    const second = await start({ controllers: true, leaseNamespace: project, podNodeName: nodeName }, { BROWSERFN_CONTROL_URL: api.url });
    assert.equal(second.manager?.isLeader, false, 'only one replica leads');

    const hold2 = await startHoldServer();
    try {
      const created = await client().request('POST', `/v1/functions/${fnId}/invoke`, { params: { url: hold2.url, tag: 'across-restart' } });
      assert.equal(created.status, 202);
      await hold2.arrived(1);
      const { items: pods } = await api.cluster.resource<PodObject>(Kinds.Pod).list(project, { labelSelector: `browserfn.dev/invocation=${created.body.id}` });
      assert.deepEqual(pods[0].spec.containers.map((c) => c.name), ['chromium', 'agent'], 'Chromium and the pod agent are separate containers');
      // The pod token is not in the Pod: a Secret owned by the pod holds it (the garbage collector removes it with the pod).
      const tokenEnv = pods[0].spec.containers[1].env?.find((e) => e.name === 'BROWSERFN_POD_TOKEN');
      assert.deepEqual(tokenEnv, { name: 'BROWSERFN_POD_TOKEN', valueFrom: { secretKeyRef: { name: `${pods[0].metadata.name}-token`, key: 'token' } } });
      const tokenSecret = await api.cluster.resource(Kinds.Secret).get(project, `${pods[0].metadata.name}-token`);
      assert.equal(tokenSecret?.metadata.ownerReferences?.[0].uid, pods[0].metadata.uid);
      assert.equal(pods[0].spec.automountServiceAccountToken, false);
      for (const c of pods[0].spec.containers) {
        assert.equal(c.securityContext?.readOnlyRootFilesystem, true);
        assert.deepEqual(c.securityContext?.capabilities, { drop: ['ALL'] });
        assert.ok(c.resources?.limits?.memory, `${c.name} has a memory limit`);
      }
      assert.equal(pods[0].spec.activeDeadlineSeconds, 900 + POD_GRACE_SECONDS);
      await stopService(first); // releases the Lease
      await waitFor('replica 2 to take the Lease over', async () => (second.manager?.isLeader ? true : undefined), 60_000, 100);
      hold2.release();
      const done = await waitInvocation(client(), created.body.id, 120_000);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
      assert.equal((done.results as { tag: string }).tag, 'across-restart');
    } finally {
      hold2.release();
      await hold2.close();
    }
  });
});
