// The chart installed end to end on a control plane that runs workloads (its own: scheduler,
// Deployment/ReplicaSet/ServiceAccount controllers, ServiceAccount admission): `helm install`, the
// operator and API pods scheduled onto this test's node agent, each with its own TokenRequest token
// at the standard path so in-cluster configuration is used and the chart's RBAC is all it holds; a
// call outside that RBAC is refused; `helm upgrade` with a changed value rolls the pods; `helm
// uninstall` leaves the CRDs. Needs Go (control plane, helm) and the bubblewrap sandbox (the
// standard path exists only inside it).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { createLogger } from '../../src/config/logger.js';
import { loadSettings } from '../../src/config/settings.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { controlPlaneUnavailable, repoRoot } from '../support/controlplane.js';
import { assertNoProcessesUnder } from '../support/processes.js';
import { apiClient } from '../support/api-client.js';
import { HELM, helmUnavailable } from '../support/chart-tools.js';
import { waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { publish, waitInvocation } from '../support/publish.js';
import { helmWorkloads, kubectlWorkloads, startWorkloadsControlPlane, stopWorkloadsControlPlane, WORKLOADS_KUBECONFIG } from '../support/workloads-controlplane.js';

const ROOT = repoRoot();
const RELEASE = 'bfn';
const NAMESPACE = 'browserfn-install';
const NODE = 'install-e2e-node';
const API_SA = `${RELEASE}-browserfn-api`;

const TITLE_FN = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';
defineFn('data-title', async (ctx) => {
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  const context = browser.contexts()[0] ?? (await browser.newContext());
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto('data:text/html,<title>installed</title>');
  return { title: await page.title(), sum: await page.evaluate('1 + 1') };
});
`;

async function must(args: string[], stdin?: string): Promise<string> {
  const { code, stdout, stderr } = await kubectlWorkloads(args, stdin);
  assert.equal(code, 0, `kubectl ${args.join(' ')}: ${stderr}`);
  return stdout;
}

async function helm(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await helmWorkloads(HELM, args);
  assert.equal(code, 0, `helm ${args.join(' ')}: ${stderr}`);
  return stdout;
}

async function podsOf(component: string): Promise<PodObject[]> {
  const list = JSON.parse(await must(['-n', NAMESPACE, 'get', 'pods', '-l', `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=${component}`, '-o', 'json'])) as { items: PodObject[] };
  return list.items;
}

/** What the pod's own process sees at `path` (its mount namespace, through /proc/<pid>/root): its pid is the one bound to the pod's address. */
function seenByPodProcess(pod: PodObject, command: string, path: string): { content: string; env: string[] } {
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (env.includes(`BROWSERFN_HOST=${pod.status?.podIP}`) && cmdline.includes(command)) return { content: readFileSync(`/proc/${entry}/root${path}`, 'utf8'), env };
    } catch {
      // another user's process, or gone meanwhile
    }
  }
  throw new Error(`no process of ${pod.metadata.name} running \`${command}\``);
}

const ready = (pod: PodObject) => pod.status?.phase === 'Running' && pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && !pod.metadata.deletionTimestamp;

const unavailable = controlPlaneUnavailable() ?? helmUnavailable();

(unavailable ? describe.skip : describe)(`the chart installed end to end${unavailable ? ` — SKIPPED: ${unavailable}` : ''}`, function () {
  this.timeout(300_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-install-e2e-'));
  let agent: RunningService | undefined;
  let apiPods: PodObject[] = [];
  let apiKey = '';
  let fnId = '';

  /** The façade as the installed API pod serves it (the test talks to the pod's own address). */
  const client = (pod: PodObject): TestService => apiClient(() => `http://${pod.status?.podIP}:8080`, () => apiKey);

  /** The files the node agent projected for a pod: its kube-api-access-* volume's folder. */
  const projectedFolder = (pod: PodObject) => {
    const podDir = join(dataDir, 'pods', `${pod.metadata.namespace}_${pod.metadata.name}_${(pod.metadata.uid ?? '').slice(0, 8)}`);
    const volume = (pod.spec.volumes ?? []).find((v) => v.projected?.sources.some((s) => s.serviceAccountToken));
    assert.ok(volume, `ServiceAccount admission gave ${pod.metadata.name} no token volume`);
    return join(podDir, volume.name);
  };

  before(async function () {
    if (unavailable) console.warn(`\n*** SKIPPING the chart install suite: ${unavailable} ***\n`);
    await startWorkloadsControlPlane();
    // The node agent runs with its own least rights (node-agent-rbac.yaml), not as an admin.
    await must(['apply', '-f', join(ROOT, 'test', 'chart', 'node-agent-rbac.yaml')]);
    const token = (await must(['-n', 'kube-system', 'create', 'token', 'browserfn-node-agent', '--duration=2h'])).trim();
    const kubeconfig = parse(readFileSync(WORKLOADS_KUBECONFIG, 'utf8')) as { users: { user: { token: string } }[] };
    kubeconfig.users[0].user.token = token;
    const agentKubeconfig = join(dataDir, 'node-agent.kubeconfig');
    writeFileSync(agentKubeconfig, stringify(kubeconfig), { mode: 0o600 });
    // The node agent of this test: pods sandboxed on the host's network, each with an address of its own.
    agent = await startService(
      loadSettings({ dataDir, port: 0, host: '127.0.0.1', env: { BROWSERFN_SANDBOX: 'bwrap', BROWSERFN_SANDBOX_NETWORK: 'host', BROWSERFN_NPM_CACHE: join(tmpdir(), 'browserfn-test-npm-cache'), BROWSERFN_API_KEYS: `unused-${randomBytes(4).toString('hex')}:unused` } }),
      { backend: 'kube', kubeconfigPath: agentKubeconfig, api: false, controllers: false, nodeAgent: true, nodeName: NODE, image: 'browserfn:test' },
      createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    );
  });

  after(async () => {
    await agent?.stop();
    await kubectlWorkloads(['delete', 'namespace', NAMESPACE, '--wait=false']);
    await stopWorkloadsControlPlane();
    try {
      await assertNoProcessesUnder(dataDir, 'the node agent stopped');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('helm install: the operator and API pods run on the node agent, each with its own ServiceAccount token at the standard path', async () => {
    await helm([
      'install', RELEASE, join(ROOT, 'charts', 'browserfn'), '-n', NAMESPACE, '--create-namespace',
      '--set', 'image.repository=browserfn', '--set', 'image.tag=test',
      '--set', 'operator.replicas=1', '--set', 'api.replicas=2', '--set', 'warmPool.size=0',
      // The node agent has no Service proxy: the Service's port is the container's.
      '--set', 'api.service.port=8080',
      '--set-string', `operator.nodeSelector.kubernetes\\.io/hostname=${NODE}`,
      '--set-string', `api.nodeSelector.kubernetes\\.io/hostname=${NODE}`,
    ]);
    await must(['-n', NAMESPACE, 'rollout', 'status', `deployment/${RELEASE}-browserfn-api`, '--timeout=180s']);
    await must(['-n', NAMESPACE, 'rollout', 'status', `deployment/${RELEASE}-browserfn-operator`, '--timeout=120s']);
    apiPods = (await podsOf('api')).filter(ready);
    assert.equal(apiPods.length, 2);
    // Two replicas on one host network: each bound its own address.
    const ips = apiPods.map((p) => p.status?.podIP);
    assert.equal(new Set(ips).size, 2, `pod IPs: ${ips.join(', ')}`);
    for (const pod of [...apiPods, ...(await podsOf('operator'))]) {
      assert.equal(pod.spec.nodeName, NODE);
      const token = readFileSync(join(projectedFolder(pod), 'token'), 'utf8');
      // The token names this pod and its ServiceAccount (bound by TokenRequest), and the API server agrees.
      const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { 'kubernetes.io': { pod: { name: string; uid: string }; serviceaccount: { name: string } } };
      assert.equal(claims['kubernetes.io'].pod.uid, pod.metadata.uid);
      assert.equal(claims['kubernetes.io'].serviceaccount.name, pod.spec.serviceAccountName);
      const whoami = await must(['--token', token, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
      assert.equal(whoami, `system:serviceaccount:${NAMESPACE}:${pod.spec.serviceAccountName}`);
      assert.equal(readFileSync(join(projectedFolder(pod), 'namespace'), 'utf8'), NAMESPACE);
      assert.match(readFileSync(join(projectedFolder(pod), 'ca.crt'), 'utf8'), /BEGIN CERTIFICATE/);
      // Inside the pod's sandbox the same token is at the standard path, and the API server's address is in its environment.
      const component = pod.metadata.labels?.['app.kubernetes.io/component'] ?? '';
      const seen = seenByPodProcess(pod, component, '/var/run/secrets/kubernetes.io/serviceaccount/token');
      assert.equal(seen.content, token);
      assert.ok(seen.env.some((e) => e.startsWith('KUBERNETES_SERVICE_HOST=')) && !seen.env.some((e) => e.startsWith('KUBECONFIG=')), 'in-cluster configuration, no kubeconfig');
    }
    // The API answers from the cluster with its in-cluster credentials: an unknown Function is a 404, not a 500.
    const keys = JSON.parse(await must(['-n', NAMESPACE, 'get', 'secret', `${RELEASE}-browserfn-api-keys`, '-o', 'json'])) as { data: Record<string, string> };
    apiKey = Buffer.from(keys.data.BROWSERFN_API_KEYS, 'base64').toString().split(',')[0].split(':')[0];
    for (const pod of apiPods) {
      const response = await fetch(`http://${pod.status?.podIP}:8080/v1/functions/00000000-0000-4000-8000-000000000000`, { headers: { 'x-svc-api-key': apiKey } });
      assert.equal(response.status, 404, await response.text());
    }
  });

  it('publishes and invokes through the installed API pod: build and browser pods reach it by its Service name, Chromium runs', async () => {
    const build = await publish(client(apiPods[0]), writeProject({ 'index.ts': TITLE_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    fnId = build.builtFunctions![0].id;
    const created = await client(apiPods[1]).request('POST', `/v1/functions/${fnId}/invoke`, {});
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const done = await waitInvocation(client(apiPods[1]), created.body.id, 180_000);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    assert.deepEqual(done.results, { title: 'installed', sum: 2 });
  });

  it('a call outside the chart\'s RBAC is refused', async () => {
    const token = readFileSync(join(projectedFolder(apiPods[0]), 'token'), 'utf8');
    // kube-system holds no project: the API's ServiceAccount has no right there.
    const { code, stderr } = await kubectlWorkloads(['--token', token, '-n', 'kube-system', 'get', 'secrets']);
    assert.notEqual(code, 0);
    assert.match(stderr, /forbidden/i);
    assert.match(stderr, new RegExp(`system:serviceaccount:${NAMESPACE}:${API_SA}`));
  });

  it('helm upgrade with a changed value rolls the pods; invocations work through the new ones', async () => {
    const before = [...(await podsOf('api')), ...(await podsOf('operator'))].map((p) => p.metadata.name);
    const hashBefore = (await podsOf('api'))[0].metadata.labels?.['pod-template-hash'];
    await helm(['upgrade', RELEASE, join(ROOT, 'charts', 'browserfn'), '-n', NAMESPACE, '--reuse-values', '--set', 'logLevel=debug']);
    await must(['-n', NAMESPACE, 'rollout', 'status', `deployment/${RELEASE}-browserfn-api`, '--timeout=180s']);
    const after = await waitFor('the old API pods to be gone', async () => {
      const pods = await podsOf('api');
      return pods.length === 2 && pods.every(ready) && pods.every((p) => !before.includes(p.metadata.name)) ? pods : undefined;
    }, 120_000, 500);
    assert.notEqual(after[0].metadata.labels?.['pod-template-hash'], hashBefore);
    await must(['-n', NAMESPACE, 'rollout', 'status', `deployment/${RELEASE}-browserfn-operator`, '--timeout=120s']);
    await waitFor('the old operator pod to be gone', async () => {
      const pods = await podsOf('operator');
      return pods.length === 1 && pods.every(ready) && pods.every((p) => !before.includes(p.metadata.name)) ? pods : undefined;
    }, 120_000, 500);
    // A new browser pod resolves the Service to a new API pod.
    const created = await client(after[0]).request('POST', `/v1/functions/${fnId}/invoke`, {});
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const done = await waitInvocation(client(after[0]), created.body.id, 180_000);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    const config = JSON.parse(await must(['-n', NAMESPACE, 'get', 'configmap', `${RELEASE}-browserfn-config`, '-o', 'json'])) as { data: Record<string, string> };
    assert.equal(config.data.BROWSERFN_LOG_LEVEL, 'debug');
  });

  it('helm uninstall removes the release and leaves the CRDs', async () => {
    await helm(['uninstall', RELEASE, '-n', NAMESPACE, '--wait', '--timeout', '120s']);
    await waitFor('the release\'s pods to be gone', async () => ((await podsOf('api')).length + (await podsOf('operator')).length === 0 ? true : undefined), 120_000, 500);
    const crds = await must(['get', 'crd', '-o', 'name']);
    for (const plural of ['functions', 'builds', 'invocations', 'browserpools']) assert.match(crds, new RegExp(`${plural}\\.browserfn\\.dev`));
  });
});
