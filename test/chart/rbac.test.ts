// The operator and the API holding only the chart's rights, on the real API server: the chart's
// ServiceAccounts and Roles (rendered by helm, applied for real) and a token of each ServiceAccount.
// The operator's own controller manager, watching the chart's project namespaces
// (BROWSERFN_WATCH_NAMESPACES), takes the Lease, syncs every informer, and builds a hand-written
// Function: a Build, its archive, its pod and the pod's token Secret, all made under the Roles. The
// façade uploads, lists and reads builds, makes the project key pair and invokes. What the chart
// does not grant is refused. Needs helm (scripts/chart/build.sh).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { openKubeCluster } from '../../src/cluster/kube/index.js';
import { Kinds, newObject } from '../../src/cluster/objects.js';
import { ClusterError, type ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import { loadSettings } from '../../src/config/settings.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { packProject } from '../../src/cli/pack.js';
import { Metrics } from '../../src/config/metrics.js';
import { openArtifactStore } from '../../src/artifacts/open.js';
import type { ArtifactStore } from '../../src/artifacts/port.js';
import { createControllerManager } from '../../src/controller/setup.js';
import { loadWebhookSettings } from '../../src/webhooks/settings.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import type { Manager } from '../../src/controller/runtime/manager.js';
import { systemClock } from '../../src/controller/runtime/clock.js';
import { Labels, Roles, type BuildObject, type FunctionObject } from '../../src/schemas/resources.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { controlPlaneUnavailable, ensureControlPlane, KUBECONFIG_PATH, kubectl, repoRoot } from '../support/controlplane.js';
import { HELM, helmUnavailable } from '../support/chart-tools.js';
import { waitFor } from '../support/service.js';

const ROOT = repoRoot();
const RELEASE = 'bfn';
const OPERATOR_SA = `${RELEASE}-browserfn-operator`;
const API_SA = `${RELEASE}-browserfn-api`;

async function must(args: string[], stdin?: string): Promise<string> {
  const { code, stdout, stderr } = await kubectl(args, stdin);
  assert.equal(code, 0, `kubectl ${args.join(' ')}: ${stderr}`);
  return stdout;
}

const unavailable = controlPlaneUnavailable();

(unavailable ? describe.skip : describe)(`operator and API under the chart's RBAC${unavailable ? ` — SKIPPED: ${unavailable}` : ''}`, function () {
  this.timeout(120_000);
  const id = `rb${randomBytes(3).toString('hex')}`;
  const [release, projectA, projectB, other] = ['rel', 'team-a', 'team-b', 'other'].map((name) => `${id}-${name}`);
  const dir = mkdtempSync(join(tmpdir(), 'bfn-operator-rbac-'));
  let cluster: ClusterPort | undefined;
  let artifacts: ArtifactStore | undefined;
  let manager: Manager | undefined;
  const webhookSettings = loadWebhookSettings({});
  const webhookSender = new WebhookSender(webhookSettings);
  let api: RunningService | undefined;

  before(async function () {
    // Cold builds of the control plane and of helm take minutes.
    this.timeout(60 * 60_000);
    const plane = await ensureControlPlane();
    if (plane.state !== 'ready') throw new Error(`the test control plane is not available: ${plane.reason}`);
    const noHelm = helmUnavailable();
    if (noHelm) {
      console.warn(`SKIPPING the operator RBAC test: ${noHelm}`);
      this.skip();
    }
    for (const ns of [release, projectA, projectB, other]) await must(['create', 'namespace', ns]);
    const rendered = spawnSync(HELM, ['template', RELEASE, join(ROOT, 'charts', 'browserfn'), '-n', release, '--set-json', `projects=${JSON.stringify([{ namespace: projectA }, { namespace: projectB }])}`], { encoding: 'utf8' });
    assert.equal(rendered.status, 0, rendered.stderr);
    await must(['apply', '-f', '-'], rendered.stdout);
    // A token of each ServiceAccount, in place of the admin's in a copy of the kubeconfig.
    for (const sa of [OPERATOR_SA, API_SA]) {
      const token = (await must(['-n', release, 'create', 'token', sa, '--duration', '1h'])).trim();
      const kubeconfig = parse(readFileSync(plane.kubeconfigPath, 'utf8')) as { users: { user: Record<string, unknown> }[] };
      kubeconfig.users[0].user = { token };
      writeFileSync(join(dir, `${sa}.kubeconfig`), stringify(kubeconfig), { mode: 0o600 });
    }
    cluster = await openKubeCluster({ kubeconfigPath: join(dir, `${OPERATOR_SA}.kubeconfig`) });
  });

  after(async function () {
    this.timeout(60_000);
    await api?.stop();
    await manager?.stop();
    await webhookSender.close();
    await cluster?.close();
    await artifacts?.close();
    rmSync(dir, { recursive: true, force: true });
    if (!unavailable) for (const ns of [release, projectA, projectB, other]) await kubectl(['delete', 'namespace', ns, '--wait=false', '--ignore-not-found']);
  });

  it('takes the Lease, syncs its informers in the project namespaces, and builds a Function there with the Roles alone', async () => {
    artifacts = await openArtifactStore({ kind: 'filesystem', dir: join(dir, 'artifacts') });
    const log = createLogger('silent');
    manager = createControllerManager({
      cluster: cluster!,
      templates: { controlUrl: 'http://127.0.0.1:1', podTokenSecret: 'test-signing-secret', image: 'browserfn:test', chromiumSidecar: true },
      maxConcurrentInvocations: 1,
      maxRunningInvocationsPerProject: 0,
      maxConcurrentBuilds: 1,
      metrics: new Metrics(),
      log,
      namespaces: [projectA, projectB],
      warmPool: { size: 0, maxSize: 0, idleSeconds: 600, maxAgeSeconds: 1800, memoryCapBytes: 0, codeAhead: true },
      webhooks: { settings: webhookSettings, sender: webhookSender },
      leaderElection: { namespace: release, name: 'browserfn-controllers', identity: `test-${id}` },
      retention: { archive: { store: artifacts, retentionMs: 86_400_000, now: systemClock }, finishedTtlMs: 3_600_000, keepVersions: 10, sweepIntervalMs: 3_600_000, clock: systemClock },
    });
    let lost = false;
    // Resolves once the Lease is held and every informer has listed and watched both projects.
    await Promise.race([
      manager.start(() => (lost = true)),
      new Promise((_, reject) => setTimeout(() => reject(new Error('the controllers did not start within 30 s: an informer or the Lease is refused (see the RBAC)')), 30_000).unref()),
    ]);
    assert.equal(manager.isLeader, true);
    const lease = JSON.parse(await must(['-n', release, 'get', 'lease', 'browserfn-controllers', '-o', 'json'])) as { spec: { holderIdentity: string } };
    assert.equal(lease.spec.holderIdentity, `test-${id}`);

    const fn = newObject<FunctionObject>(Kinds.Function, { name: 'page-title', namespace: projectA }, { spec: { name: 'page-title', source: { inline: "import { defineFn } from 'browserfn';\ndefineFn('page-title', async () => ({ ok: true }));\n" } } });
    await must(['apply', '-f', '-'], JSON.stringify(fn));
    const admin = await openKubeCluster({ kubeconfigPath: KUBECONFIG_PATH });
    try {
      const build = await waitFor('the Build of the hand-written Function, started', async () => {
        const { items } = await admin.resource<BuildObject>(Kinds.Build).list(projectA);
        return items.find((b) => b.status?.phase === 'RUNNING');
      });
      const pods = await admin.resource<PodObject>(Kinds.Pod).list(projectA, { labelSelector: `${Labels.buildName}=${build.metadata.name}` });
      assert.equal(pods.items.length, 1, 'one build pod');
      assert.equal(pods.items[0].metadata.labels?.[Labels.role], Roles.buildPod);
      assert.equal(pods.items[0].spec.automountServiceAccountToken, false);
      const token = await admin.resource(Kinds.Secret).get(projectA, `${pods.items[0].metadata.name}-token`);
      assert.ok(token, "the build pod's token Secret");
      const archive = await admin.resource(Kinds.ConfigMap).get(projectA, build.spec.archiveConfigMap);
      assert.ok(archive, 'the uploaded source, stored as an artifact');
    } finally {
      await admin.close();
    }
    assert.equal(lost, false, 'the Lease was kept');
  });

  it('is refused what the chart does not grant: lists across the cluster, Secrets in a project, anything elsewhere', async () => {
    const refused = async (what: string, call: () => Promise<unknown>): Promise<void> => {
      await assert.rejects(call, (err: unknown) => err instanceof ClusterError && err.code === 403, `${what} should be refused (403)`);
    };
    await refused('pods across the cluster', () => cluster!.resource(Kinds.Pod).list(undefined));
    await refused('configmaps across the cluster', () => cluster!.resource(Kinds.ConfigMap).list(undefined));
    await refused('functions across the cluster', () => cluster!.resource(Kinds.Function).list(undefined));
    await refused('secrets in a project', () => cluster!.resource(Kinds.Secret).list(projectA));
    await refused('a configmap outside the projects', () => cluster!.resource(Kinds.ConfigMap).get(other, 'kube-root-ca.crt'));
    await refused('pods in kube-system', () => cluster!.resource(Kinds.Pod).list('kube-system'));
    await refused('the release namespace, which is no project', () => cluster!.resource(Kinds.ConfigMap).list(release));
  });

  it('serves the API with its own Roles: uploads, lists and reads builds, makes the project key pair, invokes', async () => {
    const apiKey = `key-${id}`;
    const settings = loadSettings({ dataDir: join(dir, 'api'), port: 0, host: '127.0.0.1', env: { BROWSERFN_API_KEYS: `${apiKey}:${projectA}`, BROWSERFN_POD_TOKEN_SECRET: 'test-signing-secret' } });
    api = await startService(settings, { backend: 'kube', kubeconfigPath: join(dir, `${API_SA}.kubeconfig`), api: true, controllers: false, nodeAgent: false, nodeName: 'none', image: 'browserfn:test' }, createLogger('silent'));
    const call = async <T>(method: string, path: string, body?: FormData | object): Promise<{ status: number; body: T }> => {
      const headers: Record<string, string> = { 'x-svc-api-key': apiKey };
      if (body && !(body instanceof FormData)) headers['content-type'] = 'application/json';
      const response = await fetch(api!.url + path, { method, headers, body: body instanceof FormData ? body : body && JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as T };
    };

    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'rbac-check', version: '1.0.0', type: 'module' }));
    writeFileSync(join(project, 'index.ts'), "import { defineFn } from 'browserfn';\ndefineFn('uploaded', async () => ({ ok: true }));\n");
    const packed = await packProject(join(project, 'index.ts'));
    const form = new FormData();
    form.append('metadata', JSON.stringify({ entrypoint: packed.entrypoint }));
    form.append('archive', new Blob([new Uint8Array(packed.archive)], { type: 'application/gzip' }), 'archive.tar.gz');
    const created = await call<{ id: string }>('POST', '/v1/functions/builds', form);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await call('GET', `/v1/functions/builds/${created.body.id}`)).status, 200);
    assert.equal((await call('GET', `/v1/functions/builds/${created.body.id}/logs`)).status, 200);
    const listed = await call<{ data: { id: string }[] }>('GET', '/v1/functions/builds');
    assert.equal(listed.status, 200);
    assert.ok(listed.body.data.some((b) => b.id === created.body.id), 'the upload is listed');
    assert.equal((await call('GET', '/v1/secrets/keypair')).status, 200, 'the project key pair (a Secret made on first use)');
    assert.equal((await call('GET', '/v1/secrets')).status, 200);

    // A published Function, written as the build reconciler would, so that invoke has a version to run.
    const admin = await openKubeCluster({ kubeconfigPath: KUBECONFIG_PATH });
    let fn: FunctionObject;
    try {
      fn = await admin.resource<FunctionObject>(Kinds.Function).create(
        newObject<FunctionObject>(Kinds.Function, { name: 'published', namespace: projectA }, { spec: { name: 'published', version: { id: randomUUID(), number: 1, bundleConfigMap: `artifact-${'0'.repeat(64)}`, sessionConfig: {}, createdAt: new Date().toISOString() } } }),
      );
    } finally {
      await admin.close();
    }
    const invoked = await call<{ id: string }>('POST', `/v1/functions/${fn.metadata.uid}/invoke`, { params: {} });
    assert.equal(invoked.status, 202, JSON.stringify(invoked.body));
    assert.equal((await call('GET', `/v1/functions/invocations/${invoked.body.id}`)).status, 200);
    // Cancelled: the API marks it and waits on it, the operator (under its own Roles, from the first test) ends it.
    const cancelled = await call<{ status: string; cause: { code: string } }>('POST', `/v1/functions/invocations/${invoked.body.id}/cancel`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.cause.code, 'CANCELLED');
    assert.equal((await call('GET', `/v1/functions/${fn.metadata.uid}/versions`)).status, 200);

    const apiCluster = await openKubeCluster({ kubeconfigPath: join(dir, `${API_SA}.kubeconfig`) });
    try {
      await assert.rejects(() => apiCluster.resource(Kinds.Secret).list(other), (err: unknown) => err instanceof ClusterError && err.code === 403, 'Secrets outside the projects');
      await assert.rejects(() => apiCluster.resource(Kinds.Pod).list(projectA), (err: unknown) => err instanceof ClusterError && err.code === 403, 'listing pods');
      await assert.rejects(() => apiCluster.resource(Kinds.Invocation).list(undefined), (err: unknown) => err instanceof ClusterError && err.code === 403, 'invocations across the cluster');
    } finally {
      await apiCluster.close();
    }
  });
});
