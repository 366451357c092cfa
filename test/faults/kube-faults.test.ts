// Faults on the real control plane (kube-apiserver + etcd built here): the node agent killed with
// SIGKILL while a handler runs and started again, the façade restarted while a pod reports, and
// etcd and the API server killed and restarted under the running watches. Each time the invocation
// completes, and runs again only when its pod was lost.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kinds } from '../../src/cluster/objects.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { loadSettings } from '../../src/config/settings.js';
import { createLogger } from '../../src/config/logger.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/server/service.js';
import { ensureControlPlane, kubectl, restartControlPlane, type ControlPlane } from '../support/controlplane.js';
import { startHoldServer } from '../support/hold-server.js';
import { assertNoProcessesUnder } from '../support/processes.js';
import { writeProject } from '../support/projects.js';
import { publish, waitInvocation } from '../support/publish.js';
import { waitFor, type TestService } from '../support/service.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

const HOLD_FN = `
import { defineFn } from 'browserfn';
defineFn('wait-for-release', async (ctx, params: { url: string; tag: string }) => {
  const res = await fetch(params.url + '/' + params.tag);
  return { tag: params.tag, answer: await res.text() };
});
`;

describe('faults on a real kube-apiserver', function () {
  this.timeout(600_000);
  let plane: ControlPlane;
  const project = `faults-${randomBytes(3).toString('hex')}`;
  const nodeName = `node-${project}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-kube-faults-'));
  const apiKey = `key-${randomBytes(8).toString('hex')}`;
  const env = {
    BROWSERFN_API_KEYS: `${apiKey}:${project}`,
    BROWSERFN_POD_TOKEN_SECRET: randomBytes(24).toString('hex'),
    BROWSERFN_NPM_CACHE: join(tmpdir(), 'browserfn-test-npm-cache'),
    BROWSERFN_SANDBOX_NETWORK: 'host',
    BROWSERFN_WARM_POOL_SIZE: '0',
  };
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const running: RunningService[] = [];
  let api: RunningService;
  let operator: RunningService;
  let nodeAgent: ChildProcess | undefined;
  let fnId: string;

  const start = async (parts: Partial<ServiceOptions>, port = 0, extraEnv: Record<string, string> = {}) => {
    const service = await startService(
      loadSettings({ dataDir, port, host: '127.0.0.1', env: { ...env, ...extraEnv } }),
      { backend: 'kube', kubeconfigPath: plane.state === 'ready' ? plane.kubeconfigPath : undefined, api: false, controllers: false, nodeAgent: false, nodeName, image: 'browserfn:test', ...parts },
      log,
    );
    running.push(service);
    return service;
  };
  const stopService = async (service: RunningService) => {
    running.splice(running.indexOf(service), 1);
    await service.stop();
  };

  /** `browserfn node-agent` as a process of its own, so it can be killed like a crashed kubelet. */
  async function startNodeAgent(): Promise<ChildProcess> {
    const child = spawn(process.execPath, [CLI, 'node-agent', '--node-name', nodeName, '--kubeconfig', (plane as { kubeconfigPath: string }).kubeconfigPath, '--data-dir', dataDir, '--port', '0', '--host', '127.0.0.1'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const listening = new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('browserfn listening on')) resolve();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`the node agent exited with ${code}: ${output.slice(-2000)}`)));
    });
    await listening;
    return child;
  }

  const client = (): TestService =>
    ({
      url: api.url,
      async request(method: string, path: string, body?: unknown) {
        const init: RequestInit = { method, headers: { 'x-svc-api-key': apiKey } };
        if (body instanceof FormData) init.body = body;
        else if (body !== undefined) {
          init.body = JSON.stringify(body);
          (init.headers as Record<string, string>)['content-type'] = 'application/json';
        }
        const response = await fetch(api.url + path, init);
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined };
      },
    }) as unknown as TestService;

  const podsOf = async (invocation: string) =>
    (await api.cluster.resource<PodObject>(Kinds.Pod).list(project, { labelSelector: `browserfn.dev/invocation=${invocation}` })).items;

  before(async function () {
    plane = await ensureControlPlane();
    if (plane.state === 'no-go') {
      console.warn(`\n*** SKIPPING the Kubernetes fault suite: ${plane.reason} ***\n`);
      this.skip();
    }
    if (plane.state === 'failed') throw new Error(`the test control plane did not start: ${plane.reason}`);
    const ns = await kubectl(['create', 'namespace', project]);
    assert.equal(ns.code, 0, ns.stderr);
    api = await start({ api: true });
    // Pods report to the façade at this address, which the restart test keeps.
    operator = await start({ controllers: true, leaseNamespace: project, podNodeName: nodeName }, 0, { BROWSERFN_CONTROL_URL: api.url });
    nodeAgent = await startNodeAgent();
    await waitFor('the operator to lead', async () => (operator.manager?.isLeader ? true : undefined), 60_000);
    const build = await publish(client(), writeProject({ 'index.ts': HOLD_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    fnId = build.builtFunctions![0].id;
  });

  after(async () => {
    nodeAgent?.kill('SIGTERM');
    if (nodeAgent && nodeAgent.exitCode === null) await new Promise((resolve) => nodeAgent!.once('exit', resolve));
    for (const service of [...running].reverse()) await service.stop().catch(() => undefined);
    if (plane?.state === 'ready') {
      await kubectl(['delete', 'namespace', project, '--wait=false']);
      await kubectl(['delete', 'node', nodeName, '--wait=false']);
      if (plane.startedHere) await plane.stop();
    }
    try {
      await assertNoProcessesUnder(dataDir, 'the services stopped');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
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
      await assertNoProcessesUnder(join(dataDir, 'pods'), 'the killed node agent took its pods along');
      nodeAgent = await startNodeAgent();
      await waitFor('the lost pod marked failed or gone', async () => {
        const pod = await api.cluster.resource<PodObject>(Kinds.Pod).get(project, first.metadata.name);
        return !pod || pod.status?.phase === 'Failed' ? true : undefined;
      }, 60_000, 200);
      hold.release();
      const done = await waitInvocation(client(), created.body.id, 180_000);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
      assert.equal((done.results as { tag: string }).tag, 'node-agent-killed');
      const inv = await kubectl(['get', 'invocations.browserfn.dev', created.body.id, '-n', project, '-o', 'json']);
      assert.equal(JSON.parse(inv.stdout).status.attempts, 2, 'run once more, in a second pod');
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
      await stopService(api);
      // The handler returns while no façade listens: the pod's report fails and is retried.
      hold.release();
      api = await start({ api: true }, port);
      const done = await waitInvocation(client(), created.body.id, 120_000);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
      assert.equal((done.results as { tag: string }).tag, 'facade-restarted');
      const inv = await kubectl(['get', 'invocations.browserfn.dev', created.body.id, '-n', project, '-o', 'json']);
      assert.equal(JSON.parse(inv.stdout).status.attempts, 1, 'the handler ran once');
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
      hold.release();
      const done = await waitInvocation(client(), created.body.id, 180_000);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
      assert.equal((done.results as { tag: string }).tag, 'store-restarted');
      const inv = await kubectl(['get', 'invocations.browserfn.dev', created.body.id, '-n', project, '-o', 'json']);
      assert.equal(JSON.parse(inv.stdout).status.attempts, 1, 'the handler ran once');

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
