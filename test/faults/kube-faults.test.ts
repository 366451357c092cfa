// Faults on the real control plane (kube-apiserver + etcd built here): the node agent killed with
// SIGKILL while a handler runs and started again, the façade restarted while a pod reports, and
// etcd and the API server killed and restarted under the running watches. Each time the invocation
// completes, and runs again only when its pod was lost.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kinds } from '../../src/cluster/objects.js';
import type { PodObject } from '../../src/schemas/pod.js';
import type { RunningService } from '../../src/server/service.js';
import { kubectl, restartControlPlane } from '../support/controlplane.js';
import { kubeProject, type KubeProject } from '../support/kube-project.js';
import { startHoldServer } from '../support/hold-server.js';
import { assertNoProcessesUnder } from '../support/processes.js';
import { writeProject } from '../support/projects.js';
import { publish, waitInvocation } from '../support/publish.js';
import { waitFor } from '../support/service.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

// The handler's own request to the test's hold server is not what these tests are about: one that
// breaks is asked again (the hold server answers a repeat the same way) and counted, and the test
// prints the reason, so a broken connection cannot pass for a failed report.
const HOLD_FN = `
import { defineFn } from 'browserfn';
defineFn('wait-for-release', async (ctx, params: { url: string; tag: string }) => {
  const broken: string[] = [];
  for (;;) {
    try {
      const res = await fetch(params.url + '/' + params.tag);
      return { tag: params.tag, answer: await res.text(), broken };
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      broken.push(String(cause?.code ?? cause?.message ?? error));
      if (broken.length === 5) throw new Error('the hold server could not be reached: ' + broken.join(', '));
    }
  }
});
`;

/** The invocation's result, after saying so loudly when the handler had to ask the hold server again. */
function heldResult(done: { results?: unknown }): { tag: string } {
  const results = done.results as { tag: string; broken: string[] };
  if (results.broken.length > 0) console.warn(`\n*** the handler's request to the hold server broke and was made again: ${results.broken.join(', ')} ***\n`);
  return results;
}

describe('faults on a real kube-apiserver', function () {
  this.timeout(600_000);
  let kube: KubeProject;
  let api: RunningService;
  let operator: RunningService | undefined;
  let nodeAgent: ChildProcess | undefined;
  let fnId: string;
  const client = () => kube.client(() => api.url);

  /** `browserfn node-agent` as a process of its own, so it can be killed like a crashed kubelet. */
  async function startNodeAgent(): Promise<ChildProcess> {
    const args = [CLI, 'node-agent', '--node-name', kube.nodeName, '--kubeconfig', kube.plane.state === 'ready' ? kube.plane.kubeconfigPath : '', '--data-dir', kube.dataDir, '--port', '0', '--host', '127.0.0.1'];
    const child = spawn(process.execPath, args, { env: { ...process.env, ...kube.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('browserfn listening on')) resolve();
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`the node agent exited with ${code}: ${output.slice(-2000)}`)));
    });
    return child;
  }

  const podsOf = async (invocation: string) =>
    (await api.cluster.resource<PodObject>(Kinds.Pod).list(kube.project, { labelSelector: `browserfn.dev/invocation=${invocation}` })).items;
  const attemptsOf = async (invocation: string) => JSON.parse((await kubectl(['get', 'invocations.browserfn.dev', invocation, '-n', kube.project, '-o', 'json'])).stdout).status.attempts;

  before(async function () {
    const made = await kubeProject('faults');
    if ('skip' in made) {
      console.warn(`\n*** SKIPPING the Kubernetes fault suite: ${made.skip} ***\n`);
      this.skip();
    }
    kube = made as KubeProject;
    api = await kube.start({ api: true });
    // Pods report to the façade at this address, which the restart test keeps.
    // A lease that outlasts restart.sh's wait for the API server: the operator rides the restart out
    // as leader instead of stopping for a fresh process, which nothing here would start.
    const lease = { BROWSERFN_LEASE_DURATION_SECONDS: '240', BROWSERFN_LEASE_RENEW_DEADLINE_SECONDS: '200' };
    operator = await kube.start({ controllers: true, leaseNamespace: kube.project, podNodeName: kube.nodeName }, { env: { BROWSERFN_CONTROL_URL: api.url, ...lease } });
    nodeAgent = await startNodeAgent();
    await waitFor('the operator to lead', async () => (operator!.manager?.isLeader ? true : undefined), 60_000);
    const build = await publish(client(), writeProject({ 'index.ts': HOLD_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    fnId = build.builtFunctions![0].id;
  });

  after(async () => {
    if (nodeAgent && nodeAgent.exitCode === null) {
      const exited = new Promise((resolve) => nodeAgent!.once('exit', resolve));
      nodeAgent.kill('SIGTERM');
      await exited;
    }
    await kube?.cleanUp();
  });

  it('the node agent killed mid-handler and started again: the lost pod is marked failed and the invocation completes in a new one', async () => {
    const hold = await startHoldServer();
    try {
      const created = await client().request('POST', `/v1/functions/${fnId}/invoke`, { params: { url: hold.url, tag: 'node-agent-killed' } });
      assert.equal(created.status, 202);
      await hold.arrived(1);
      const [first] = await podsOf(created.body.id);
      nodeAgent!.kill('SIGKILL');
      await new Promise((resolve) => nodeAgent!.once('exit', resolve));
      // Its sandboxes die with it: nothing of the pod runs while the node has no agent.
      await assertNoProcessesUnder(join(kube.dataDir, 'pods'), 'the killed node agent took its pods along');
      nodeAgent = await startNodeAgent();
      await waitFor('the lost pod marked failed or gone', async () => {
        const pod = await api.cluster.resource<PodObject>(Kinds.Pod).get(kube.project, first.metadata.name);
        return !pod || pod.status?.phase === 'Failed' ? true : undefined;
      }, 60_000, 200);
      hold.release();
      const done = await waitInvocation(client(), created.body.id, 180_000);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
      assert.equal(heldResult(done).tag, 'node-agent-killed');
      assert.equal(await attemptsOf(created.body.id), 2, 'run once more, in a second pod');
    } finally {
      hold.release();
      await hold.close();
    }
  });

  it('the façade restarted while a pod reports: the report is retried and lands, the invocation completes once', async () => {
    const hold = await startHoldServer();
    try {
      const created = await client().request('POST', `/v1/functions/${fnId}/invoke`, { params: { url: hold.url, tag: 'facade-restarted' } });
      assert.equal(created.status, 202);
      await hold.arrived(1);
      const port = Number(new URL(api.url).port);
      await kube.stopService(api);
      // The handler returns while no façade listens: the pod's report fails and is retried.
      hold.release();
      api = await kube.start({ api: true }, { port });
      const done = await waitInvocation(client(), created.body.id, 120_000);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
      assert.equal(heldResult(done).tag, 'facade-restarted');
      assert.equal(await attemptsOf(created.body.id), 1, 'the handler ran once');
    } finally {
      hold.release();
      await hold.close();
    }
  });

  it('etcd and the API server killed and restarted mid-watch: the running invocation completes once, and the next one too', async () => {
    const hold = await startHoldServer();
    try {
      const created = await client().request('POST', `/v1/functions/${fnId}/invoke`, { params: { url: hold.url, tag: 'store-restarted' } });
      assert.equal(created.status, 202);
      await hold.arrived(1);
      await restartControlPlane();
      assert.equal(operator!.manager?.isLeader, true, 'the operator kept its lease through the restart');
      hold.release();
      const done = await waitInvocation(client(), created.body.id, 180_000);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
      assert.equal(heldResult(done).tag, 'store-restarted');
      assert.equal(await attemptsOf(created.body.id), 1, 'the handler ran once');

      // The controllers' watches came back: a new invocation is admitted, run and finished.
      const next = await client().request('POST', `/v1/functions/${fnId}/invoke`, { params: { url: hold.url, tag: 'after-restart' } });
      assert.equal(next.status, 202);
      const nextDone = await waitInvocation(client(), next.body.id, 180_000);
      assert.equal(nextDone.status, 'COMPLETED', JSON.stringify(nextDone.cause));
    } finally {
      hold.release();
      await hold.close();
    }
  });
});
