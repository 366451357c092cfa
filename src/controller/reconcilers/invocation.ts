// Invocation reconciler: admits PENDING invocations oldest first up to the concurrency limit,
// runs each in a fresh browser pod, turns the pod's report (the outcome ConfigMap) into the
// terminal status, and enforces the deadline even when a pod never reports.
import { Kinds } from '../../cluster/objects.js';
import { isAlreadyExists, isNotFound, type ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import type { Metrics } from '../../config/metrics.js';
import type { InvocationObject, InvocationStatus } from '../../schemas/resources.js';
import { isPodTerminal, type PodObject } from '../../schemas/pod.js';
import type { InvocationReport } from '../../schemas/reports.js';
import { outcomeName } from '../../functions/artifacts.js';
import { nowIso } from '../../functions/naming.js';
import { CREATED_AT_ANNOTATION, isTerminal, queuedAt } from '../../functions/invocations.js';
import type { Informer } from '../runtime/informer.js';
import type { Reconciler, Request, Result } from '../runtime/controller.js';
import { browserPod, type PodTemplateSettings } from '../pods/templates.js';
import { POD_GRACE_SECONDS } from '../../schemas/deadlines.js';
import { setCondition } from '../conditions.js';

/** A pod lost to a node restart before it reported is started again this many times in all. */
export const MAX_ATTEMPTS = 2;
const QUEUE_RECHECK_MS = 2000;

export interface InvocationReconcilerDeps {
  cluster: ClusterPort;
  invocations: Informer<InvocationObject>;
  pods: Informer<PodObject>;
  templates: PodTemplateSettings;
  maxConcurrentInvocations: number;
  metrics: Metrics;
  log: Logger;
  /** Asks for every PENDING invocation to be looked at again (a slot was freed). */
  requeuePending: () => void;
}

export class InvocationReconciler implements Reconciler {
  /** Invocations admitted by this process whose pods the cache may not show yet. */
  private readonly admitted = new Set<string>();
  /** Invocations this process just finished, which the cache may still show as running. */
  private readonly finished = new Set<string>();

  constructor(private readonly deps: InvocationReconcilerDeps) {}

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const { cluster } = this.deps;
    const inv = await cluster.resource<InvocationObject>(Kinds.Invocation).get(namespace, name);
    if (!inv || inv.metadata.deletionTimestamp) {
      this.release(`${namespace}/${name}`);
      return;
    }
    if (isTerminal(inv)) {
      this.release(`${namespace}/${name}`);
      await this.deletePod(inv);
      return;
    }

    const outcome = await cluster.resource(Kinds.ConfigMap).get(namespace, outcomeName(name));
    if (outcome) {
      const report = JSON.parse(outcome.data?.['outcome.json'] ?? '{}') as InvocationReport;
      await this.finish(inv, report.phase === 'COMPLETED' ? 'COMPLETED' : 'FAILED', {
        results: report.results,
        cause: report.cause,
        startedAt: report.startedAt ?? inv.status?.startedAt,
        endedAt: report.endedAt ?? nowIso(),
      });
      return;
    }

    const podName = inv.status?.podName;
    const pod = podName ? this.deps.pods.get(namespace, podName) ?? (await cluster.resource<PodObject>(Kinds.Pod).get(namespace, podName)) : undefined;

    if (!pod) {
      if (podName && inv.status?.phase === 'RUNNING') {
        // Started, and its pod vanished without a report.
        return this.podLost(inv, 'its browser pod was deleted before it reported');
      }
      return this.admit(inv);
    }

    if (isPodTerminal(pod)) {
      if (await cluster.resource(Kinds.ConfigMap).get(namespace, outcomeName(name))) return { requeueAfterMs: 0 };
      return this.podLost(inv, `its browser pod ended (${pod.status?.reason ?? pod.status?.phase}) without reporting`);
    }

    if (pod.status?.phase === 'Running' && inv.status?.phase !== 'RUNNING') {
      const startedAt = nowIso();
      await this.setStatus(inv, {
        phase: 'RUNNING',
        startedAt,
        expiresAt: new Date(Date.parse(startedAt) + inv.spec.timeoutSeconds * 1000).toISOString(),
      });
    }
    return this.enforceDeadline(inv);
  }

  private async admit(inv: InvocationObject): Promise<Result | void> {
    const key = `${inv.metadata.namespace}/${inv.metadata.name}`;
    if (!this.admitted.has(key)) {
      for (const done of this.finished) {
        const [ns, n] = done.split('/');
        const cached = this.deps.invocations.get(ns, n);
        if (!cached || isTerminal(cached)) this.finished.delete(done);
      }
      const running = this.deps.invocations.list(
        (i) => !isTerminal(i) && !!i.status?.podName && !this.finished.has(`${i.metadata.namespace}/${i.metadata.name}`),
      );
      const busy = new Set([...running.map((i) => `${i.metadata.namespace}/${i.metadata.name}`), ...this.admitted]).size;
      const free = this.deps.maxConcurrentInvocations - busy;
      // A slot freed elsewhere requeues this one; the delay is a safety net for missed signals.
      if (free <= 0) return { requeueAfterMs: QUEUE_RECHECK_MS };
      const waiting = this.deps.invocations
        .list((i) => !isTerminal(i) && !i.status?.podName && !this.admitted.has(`${i.metadata.namespace}/${i.metadata.name}`))
        .sort((a, b) => queuedAt(a).localeCompare(queuedAt(b)) || a.metadata.name.localeCompare(b.metadata.name));
      const position = waiting.findIndex((i) => i.metadata.uid === inv.metadata.uid);
      // Not yet in the cache counts as newest; older ones go first.
      if (position >= free || (position < 0 && waiting.length >= free)) return { requeueAfterMs: QUEUE_RECHECK_MS };
      this.admitted.add(key);
    }
    const attempt = (inv.status?.attempts ?? 0) + 1;
    const pod = browserPod(inv, attempt, this.deps.templates);
    try {
      await this.deps.cluster.resource<PodObject>(Kinds.Pod).create(pod);
    } catch (err) {
      if (!isAlreadyExists(err)) {
        this.admitted.delete(key);
        throw err;
      }
    }
    await this.setStatus(inv, { phase: 'PENDING', podName: pod.metadata.name, attempts: attempt });
    return { requeueAfterMs: (inv.spec.timeoutSeconds + POD_GRACE_SECONDS) * 1000 };
  }

  private async podLost(inv: InvocationObject, why: string): Promise<Result | void> {
    const attempts = inv.status?.attempts ?? 1;
    const handlerStarted = inv.status?.phase === 'RUNNING';
    await this.deletePod(inv);
    if (attempts < MAX_ATTEMPTS) {
      this.deps.log.warn({ invocation: inv.metadata.name, why }, 'browser pod lost; starting the invocation again');
      this.release(`${inv.metadata.namespace}/${inv.metadata.name}`, true);
      await this.setStatus(inv, { phase: 'PENDING', podName: undefined, startedAt: undefined, expiresAt: undefined });
      return { requeueAfterMs: 0 };
    }
    await this.finish(inv, 'FAILED', {
      cause: { code: 'INTERNAL_ERROR', message: `The invocation could not finish: ${why}${handlerStarted ? '' : ' (the handler never started)'}` },
      endedAt: nowIso(),
    });
  }

  private async enforceDeadline(inv: InvocationObject): Promise<Result | void> {
    const reference = Date.parse(inv.status?.startedAt ?? inv.metadata.creationTimestamp ?? nowIso());
    const deadline = reference + (inv.spec.timeoutSeconds + POD_GRACE_SECONDS) * 1000;
    const left = deadline - Date.now();
    if (left > 0) return { requeueAfterMs: left };
    await this.finish(inv, 'FAILED', {
      cause: { code: 'TIMED_OUT', message: `The invocation did not finish within its timeout of ${inv.spec.timeoutSeconds} s` },
      endedAt: nowIso(),
    });
  }

  private async finish(inv: InvocationObject, phase: 'COMPLETED' | 'FAILED', patch: InvocationStatus): Promise<void> {
    await this.setStatus(inv, { ...patch, phase });
    this.deps.metrics.invocations.labels(phase).inc();
    const created = Date.parse(inv.metadata.annotations?.[CREATED_AT_ANNOTATION] ?? inv.metadata.creationTimestamp ?? nowIso());
    this.deps.metrics.invocationDuration.observe(Math.max(0, Date.now() - created) / 1000);
    this.finished.add(`${inv.metadata.namespace}/${inv.metadata.name}`);
    this.release(`${inv.metadata.namespace}/${inv.metadata.name}`, true);
    await this.deletePod(inv);
  }

  /** Forgets an admission; when a slot was freed, the waiting invocations get another look. */
  private release(key: string, slotFreed = false): void {
    if (this.admitted.delete(key) || slotFreed) this.deps.requeuePending();
  }

  private async setStatus(inv: InvocationObject, patch: InvocationStatus): Promise<void> {
    const status: InvocationStatus = { ...inv.status, ...patch, observedGeneration: inv.metadata.generation };
    for (const key of Object.keys(patch) as (keyof InvocationStatus)[]) if (patch[key] === undefined) delete status[key];
    status.conditions = setCondition(inv.status?.conditions, {
      type: 'Succeeded',
      status: status.phase === 'COMPLETED' ? 'True' : status.phase === 'FAILED' ? 'False' : 'Unknown',
      reason: status.cause?.code ?? status.phase ?? 'PENDING',
      message: status.cause?.message,
      observedGeneration: inv.metadata.generation,
    });
    const updated = await this.deps.cluster.resource<InvocationObject>(Kinds.Invocation).updateStatus({ ...inv, status });
    inv.metadata.resourceVersion = updated.metadata.resourceVersion;
    inv.status = updated.status;
  }

  private async deletePod(inv: InvocationObject): Promise<void> {
    const podName = inv.status?.podName;
    if (!podName || !this.deps.pods.get(inv.metadata.namespace, podName)) return;
    try {
      await this.deps.cluster.resource(Kinds.Pod).delete(inv.metadata.namespace, podName);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
