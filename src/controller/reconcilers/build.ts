// Build reconciler: carries out what src/controller/policies/build.ts decides — PENDING → a build
// pod runs (RUNNING) → its report arrives as the Build's output ConfigMap → Functions and versions
// are published → COMPLETED (or FAILED with a cause).
import { Kinds, type KubeObject } from '../../cluster/objects.js';
import { isNotFound, type ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import type { Metrics } from '../../config/metrics.js';
import { Labels, Roles, type BuildObject, type BuildStatus, type BuiltFunction } from '../../schemas/resources.js';
import { isPodTerminal, type PodObject } from '../../schemas/pod.js';
import { publishVersion } from '../../functions/versions.js';
import { buildOutputName, readBuildReport, readOutputBundle } from '../../functions/stored/build-output.js';
import { bundleConfigMap, bundleName } from '../../functions/stored/bundle.js';
import type { Informer } from '../runtime/informer.js';
import type { Reconciler, Request, Result } from '../runtime/controller.js';
import { buildPod, buildPodName, type PodTemplateSettings } from '../pods/templates.js';
import { setCondition } from '../conditions.js';
import { isoAt, systemClock, type Clock } from '../runtime/clock.js';
import { buildOutcome, nextBuildStep } from '../policies/build.js';
import { succeededCondition } from '../policies/succeeded-condition.js';
import { createPodWithToken } from '../pods/token-secret.js';

export interface BuildReconcilerDeps {
  cluster: ClusterPort;
  pods: Informer<PodObject>;
  templates: PodTemplateSettings;
  maxConcurrentBuilds: number;
  metrics: Metrics;
  log: Logger;
  clock?: Clock;
}

export class BuildReconciler implements Reconciler {
  private readonly now: Clock;

  constructor(private readonly deps: BuildReconcilerDeps) {
    this.now = deps.clock ?? systemClock;
  }

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const { cluster } = this.deps;
    const configMaps = cluster.resource(Kinds.ConfigMap);
    const build = await cluster.resource<BuildObject>(Kinds.Build).get(namespace, name);
    const pod = build ? this.deps.pods.get(namespace, buildPodName(build)) : undefined;
    const phase = build?.status?.phase ?? 'PENDING';
    const active = build && !build.metadata.deletionTimestamp && phase !== 'COMPLETED' && phase !== 'FAILED';
    // Read after the pod: a pod reports before it exits, so a terminal pod without output never sent one.
    const output = active ? await configMaps.get(namespace, buildOutputName(name)) : undefined;
    const step = nextBuildStep({
      build,
      pod,
      hasOutput: !!output,
      hasArchive: active && !output && !pod ? !!(await configMaps.get(namespace, build.spec.archiveConfigMap)) : true,
      runningBuildPods: this.deps.pods.list((p) => p.metadata.labels?.[Labels.role] === Roles.buildPod && !isPodTerminal(p)).length,
      maxConcurrentBuilds: this.deps.maxConcurrentBuilds,
      now: this.now(),
    });
    switch (step.action) {
      case 'none':
        return;
      case 'clean-up':
        return this.deletePod(build!);
      case 'finish-from-output':
        await this.finish(build!, output!);
        return this.deletePod(build!);
      case 'fail':
        await this.fail(build!, step.code, step.message);
        return this.deletePod(build!);
      case 'start-pod':
        await createPodWithToken(cluster, buildPod(build!, this.deps.templates), this.deps.templates.podTokenSecret);
        if (step.markRunning) await this.setStatus(build!, { phase: 'RUNNING', startedAt: isoAt(this.now()) });
        return { requeueAfterMs: step.recheckAfterMs };
      case 'wait':
        return { requeueAfterMs: step.recheckAfterMs };
    }
  }

  private async finish(build: BuildObject, output: KubeObject): Promise<void> {
    const outcome = buildOutcome(build, readBuildReport(output));
    if ('fail' in outcome) {
      await this.fail(build, outcome.fail.code, outcome.fail.message);
      return;
    }
    const functions = outcome.publish;
    const bundle = await this.ensureBundle(build, output);
    const built: BuiltFunction[] = [];
    for (const fn of functions) built.push(await publishVersion(this.deps.cluster, build, fn, bundle.metadata.name));
    await this.ownBundle(bundle, built);
    await this.setStatus(build, { phase: 'COMPLETED', endedAt: isoAt(this.now()), builtFunctions: built });
    this.observe(build, 'COMPLETED');
  }

  /** The bundle outlives the Build: it is owned by the Functions whose versions use it. */
  private async ensureBundle(build: BuildObject, output: KubeObject): Promise<KubeObject> {
    const configMaps = this.deps.cluster.resource(Kinds.ConfigMap);
    const name = bundleName(build.metadata.name);
    const existing = await configMaps.get(build.metadata.namespace, name);
    if (existing) return existing;
    return configMaps.create(bundleConfigMap(build, readOutputBundle(output)));
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
    await this.setStatus(build, { phase: 'FAILED', endedAt: isoAt(this.now()), cause: { code, message } });
    this.observe(build, 'FAILED');
  }

  private observe(build: BuildObject, status: string): void {
    const created = Date.parse(build.metadata.creationTimestamp ?? '');
    if (!Number.isNaN(created)) this.deps.metrics.buildDuration.labels(status).observe(Math.max(0, this.now() - created) / 1000);
  }

  private async setStatus(build: BuildObject, patch: BuildStatus): Promise<void> {
    const status: BuildStatus = { ...build.status, ...patch, observedGeneration: build.metadata.generation };
    const terminal = status.phase === 'COMPLETED' || status.phase === 'FAILED';
    status.conditions = setCondition(build.status?.conditions, succeededCondition(status, build.metadata.generation), new Date(this.now()));
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
