// Build reconciler: PENDING → a build pod runs (RUNNING) → its report arrives as the Build's output
// ConfigMap → Functions and versions are published → COMPLETED (or FAILED with a cause).
import { Kinds, ownerReferenceTo, type KubeObject } from '../../cluster/objects.js';
import { isAlreadyExists, isNotFound, type ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import type { Metrics } from '../../config/metrics.js';
import { Labels, Roles, type BuildObject, type BuildStatus, type BuiltFunction } from '../../schemas/resources.js';
import { isPodTerminal, type PodObject } from '../../schemas/pod.js';
import type { BuildReport } from '../../schemas/reports.js';
import { publishVersion } from '../../functions/versions.js';
import { buildOutputName, bundleName } from '../../functions/artifacts.js';
import { nowIso } from '../../functions/naming.js';
import type { Informer } from '../runtime/informer.js';
import type { Reconciler, Request, Result } from '../runtime/controller.js';
import { buildPod, buildPodName, type PodTemplateSettings } from '../pods/templates.js';
import { setCondition } from '../conditions.js';
import { BUILD_TIMEOUT_MS } from '../../schemas/deadlines.js';

/** How long a new Build may wait for its upload to be stored. */
const ARCHIVE_WAIT_MS = 60 * 1000;

export interface BuildReconcilerDeps {
  cluster: ClusterPort;
  pods: Informer<PodObject>;
  templates: PodTemplateSettings;
  maxConcurrentBuilds: number;
  metrics: Metrics;
  log: Logger;
}

export class BuildReconciler implements Reconciler {
  constructor(private readonly deps: BuildReconcilerDeps) {}

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const { cluster } = this.deps;
    const build = await cluster.resource<BuildObject>(Kinds.Build).get(namespace, name);
    if (!build || build.metadata.deletionTimestamp) return;
    const phase = build.status?.phase ?? 'PENDING';
    if (phase === 'COMPLETED' || phase === 'FAILED') return this.deletePod(build);

    const output = await cluster.resource(Kinds.ConfigMap).get(namespace, buildOutputName(name));
    if (output) {
      await this.finish(build, output);
      return this.deletePod(build);
    }

    const pod = this.deps.pods.get(namespace, buildPodName(build));
    if (!pod) {
      // The façade stores the upload right after the Build; wait for it rather than start a pod without it.
      if (!(await cluster.resource(Kinds.ConfigMap).get(namespace, build.spec.archiveConfigMap))) {
        const age = Date.now() - Date.parse(build.metadata.creationTimestamp ?? nowIso());
        if (age < ARCHIVE_WAIT_MS) return { requeueAfterMs: 250 };
        await this.fail(build, 'INTERNAL_ERROR', 'The uploaded archive is missing; publish again');
        return;
      }
      const running = this.deps.pods.list((p) => p.metadata.labels?.[Labels.role] === Roles.buildPod && !isPodTerminal(p)).length;
      if (running >= this.deps.maxConcurrentBuilds) return { requeueAfterMs: 1000 };
      try {
        await cluster.resource<PodObject>(Kinds.Pod).create(buildPod(build, this.deps.templates));
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      if (phase === 'PENDING') await this.setStatus(build, { phase: 'RUNNING', startedAt: nowIso() });
      return { requeueAfterMs: BUILD_TIMEOUT_MS };
    }

    if (isPodTerminal(pod)) {
      // The pod may have exited right after reporting; re-read the output before calling it lost.
      if (await cluster.resource(Kinds.ConfigMap).get(namespace, buildOutputName(name))) return { requeueAfterMs: 0 };
      await this.fail(build, 'INTERNAL_ERROR', `The build process ended without reporting (${pod.status?.reason ?? pod.status?.phase}); see the build logs`);
      return this.deletePod(build);
    }
    const startedAt = Date.parse(build.status?.startedAt ?? build.metadata.creationTimestamp ?? nowIso());
    const left = startedAt + BUILD_TIMEOUT_MS - Date.now();
    if (left <= 0) {
      await this.fail(build, 'TIMED_OUT', `The build did not finish within ${BUILD_TIMEOUT_MS / 60000} minutes`);
      return this.deletePod(build);
    }
    return { requeueAfterMs: left };
  }

  private async finish(build: BuildObject, output: KubeObject): Promise<void> {
    const report = JSON.parse(output.data?.['report.json'] ?? '{}') as BuildReport;
    if (report.phase !== 'COMPLETED') {
      await this.fail(build, report.cause?.code ?? 'INTERNAL_ERROR', report.cause?.message ?? 'The build failed');
      return;
    }
    const wanted = build.spec.functionNames;
    const functions = (report.functions ?? []).filter((fn) => !wanted || wanted.includes(fn.name));
    const missing = (wanted ?? []).filter((name) => !functions.some((fn) => fn.name === name));
    if (missing.length > 0) {
      const found = (report.functions ?? []).map((fn) => `"${fn.name}"`).join(', ') || 'none';
      await this.fail(build, 'NO_MANIFESTS_FOUND', `The source does not define ${missing.map((n) => `"${n}"`).join(', ')} with defineFn (it defines ${found})`);
      return;
    }
    const bundle = await this.ensureBundle(build, output);
    const built: BuiltFunction[] = [];
    for (const fn of functions) built.push(await publishVersion(this.deps.cluster, build, fn, bundle.metadata.name));
    await this.ownBundle(bundle, built);
    await this.setStatus(build, { phase: 'COMPLETED', endedAt: nowIso(), builtFunctions: built });
    this.observe(build, 'COMPLETED');
  }

  /** The bundle outlives the Build: it is owned by the Functions whose versions use it. */
  private async ensureBundle(build: BuildObject, output: KubeObject): Promise<KubeObject> {
    const configMaps = this.deps.cluster.resource(Kinds.ConfigMap);
    const name = bundleName(build.metadata.name);
    const existing = await configMaps.get(build.metadata.namespace, name);
    if (existing) return existing;
    return configMaps.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      immutable: true,
      metadata: {
        name,
        namespace: build.metadata.namespace,
        labels: { [Labels.role]: Roles.bundle, [Labels.buildName]: build.metadata.name },
        // Owned by the Build until the Functions take it over, so a failure here leaves no orphan.
        ownerReferences: [ownerReferenceTo(build, false)],
      },
      binaryData: { 'bundle.mjs.gz': output.binaryData?.['bundle.mjs.gz'] ?? '' },
    });
  }

  private async ownBundle(bundle: KubeObject, built: BuiltFunction[]): Promise<void> {
    const configMaps = this.deps.cluster.resource(Kinds.ConfigMap);
    const fresh = await configMaps.get(bundle.metadata.namespace, bundle.metadata.name);
    if (!fresh) return;
    const refs = built.map((b) => ({
      apiVersion: 'browserfn.dev/v1alpha1',
      kind: 'Function',
      name: '',
      uid: b.id,
      controller: false,
      blockOwnerDeletion: false,
    }));
    const functions = await this.deps.cluster.resource(Kinds.Function).list(bundle.metadata.namespace);
    for (const ref of refs) ref.name = functions.items.find((f) => f.metadata.uid === ref.uid)?.metadata.name ?? '';
    const owners = refs.filter((r) => r.name && !(fresh.metadata.ownerReferences ?? []).some((o) => o.uid === r.uid));
    if (owners.length === 0 && !(fresh.metadata.ownerReferences ?? []).some((o) => o.kind === 'Build')) return;
    await configMaps.update({
      ...fresh,
      metadata: { ...fresh.metadata, ownerReferences: [...(fresh.metadata.ownerReferences ?? []).filter((o) => o.kind !== 'Build'), ...owners] },
    });
  }

  private async fail(build: BuildObject, code: string, message: string): Promise<void> {
    await this.setStatus(build, { phase: 'FAILED', endedAt: nowIso(), cause: { code, message } });
    this.observe(build, 'FAILED');
  }

  private observe(build: BuildObject, status: string): void {
    const created = Date.parse(build.metadata.creationTimestamp ?? nowIso());
    this.deps.metrics.buildDuration.labels(status).observe(Math.max(0, Date.now() - created) / 1000);
  }

  private async setStatus(build: BuildObject, patch: BuildStatus): Promise<void> {
    const status: BuildStatus = { ...build.status, ...patch, observedGeneration: build.metadata.generation };
    const terminal = status.phase === 'COMPLETED' || status.phase === 'FAILED';
    status.conditions = setCondition(build.status?.conditions, {
      type: 'Succeeded',
      status: status.phase === 'COMPLETED' ? 'True' : status.phase === 'FAILED' ? 'False' : 'Unknown',
      reason: status.cause?.code ?? status.phase,
      message: status.cause?.message,
      observedGeneration: build.metadata.generation,
    });
    if (!terminal) delete status.endedAt;
    const updated = await this.deps.cluster.resource<BuildObject>(Kinds.Build).updateStatus({ ...build, status });
    build.metadata.resourceVersion = updated.metadata.resourceVersion;
    build.status = updated.status;
  }

  private async deletePod(build: BuildObject): Promise<void> {
    if (!this.deps.pods.get(build.metadata.namespace, buildPodName(build))) return;
    try {
      await this.deps.cluster.resource(Kinds.Pod).delete(build.metadata.namespace, buildPodName(build));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
