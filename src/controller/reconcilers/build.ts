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
import { buildOutputName, readBuildReport } from '../../functions/stored/build-output.js';
import { contentArtifactName, readArtifactManifest, reownArtifact } from '../../functions/stored/artifact-store.js';
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
    const report = readBuildReport(output);
    const outcome = buildOutcome(build, report);
    if ('fail' in outcome) {
      await this.fail(build, outcome.fail.code, outcome.fail.message);
      return;
    }
    const namespace = build.metadata.namespace!;
    // The build pod stored its artifact (owned by this Build) before it reported.
    const artifact = report.artifact ? contentArtifactName(report.artifact.sha256) : undefined;
    const manifest = artifact ? await readArtifactManifest(this.deps.cluster, namespace, artifact) : undefined;
    if (!artifact || manifest?.size !== report.artifact?.size) {
      await this.fail(build, 'INTERNAL_ERROR', 'The build reported an artifact that is not stored; publish again');
      return;
    }
    const built: BuiltFunction[] = [];
    for (const fn of outcome.publish) built.push(await publishVersion(this.deps.cluster, build, fn, artifact, report.runtimePackages));
    await this.handOverArtifact(build, artifact, built);
    await this.setStatus(build, { phase: 'COMPLETED', endedAt: isoAt(this.now()), builtFunctions: built });
    this.observe(build, 'COMPLETED');
  }

  /**
   * The artifact outlives the Build: it is owned by every Function whose versions run it (one
   * artifact may serve several Functions and versions), and goes when the last of them does.
   */
  private async handOverArtifact(build: BuildObject, artifact: string, built: BuiltFunction[]): Promise<void> {
    const namespace = build.metadata.namespace!;
    const functions = await this.deps.cluster.resource(Kinds.Function).list(namespace);
    const owners = built.flatMap((b) => {
      const fn = functions.items.find((f) => f.metadata.uid === b.id);
      return fn ? [{ apiVersion: fn.apiVersion, kind: 'Function', name: fn.metadata.name, uid: b.id, controller: false, blockOwnerDeletion: false }] : [];
    });
    await reownArtifact(this.deps.cluster, namespace, artifact, owners, (ref) => ref.uid === build.metadata.uid);
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
