// Invocation reconciler: carries out what src/controller/policies decides — admits PENDING
// invocations fairly up to the concurrency limit, runs each on a claimed warm pool member or in a
// browser pod made for it, turns the
// pod's report (the outcome ConfigMap) into the terminal status, deletes the pod once it has closed
// its session, and enforces the deadline even when a pod never reports.
import { Kinds } from '../../cluster/objects.js';
import { isConflict, isNotFound, type ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import type { Metrics } from '../../config/metrics.js';
import { Labels, type BrowserPoolObject, type InvocationObject, type InvocationStatus } from '../../schemas/resources.js';
import type { PodObject } from '../../schemas/pod.js';
import { outcomeName, readOutcome } from '../../functions/stored/invocation-outcome.js';
import { sessionRecordsName } from '../../functions/stored/session-records.js';
import { CREATED_AT_ANNOTATION, isTerminal } from '../../functions/invocations.js';
import type { Informer } from '../runtime/informer.js';
import type { Reconciler, Request, Result } from '../runtime/controller.js';
import { browserPod, type PodTemplateSettings } from '../pods/templates.js';
import { POD_GRACE_SECONDS } from '../../schemas/deadlines.js';
import { setCondition } from '../conditions.js';
import { isoAt, systemClock, type Clock } from '../runtime/clock.js';
import { admissionPlan, invocationKey, mayAdmit, mayAdmitBy, type AdmissionInput, type AdmissionPlan, type MaxRunningPerProject } from '../policies/admission.js';
import { nextInvocationStep } from '../policies/invocation.js';
import { succeededCondition } from '../policies/succeeded-condition.js';
import { createPodWithToken } from '../pods/token-secret.js';
import { claimCandidates, existingClaim } from '../policies/pool.js';
import { claimedMember } from '../pods/pool-member.js';

/** How often a waiting invocation looks again without being asked (a safety net: freed slots ask the next ones). */
const QUEUE_RECHECK_MS = 2000;
/** With a long queue, the safety net spreads out: it looks again every QUEUE_RECHECK_MS per this many waiting. */
const RECHECKS_PER_INTERVAL = 100;
/** Writes of one claim, when writes that leave the member claimable (its status) keep coming first. */
const CLAIM_ATTEMPTS = 3;
/** Besides the invocations a freed slot admits, these many next in line look again (one may have been claimed meanwhile). */
const NEXT_IN_LINE = 4;

/** Whether the pod is the invocation's: any pod made for it, or a pool member claimed for it. */
const isClaimedFor = (pod: PodObject, invocation: string): boolean => !pod.metadata.labels?.[Labels.pool] || pod.metadata.labels[Labels.invocationName] === invocation;

export interface InvocationReconcilerDeps {
  cluster: ClusterPort;
  invocations: Informer<InvocationObject>;
  pods: Informer<PodObject>;
  /** Warm pools whose members invocations claim; unset: every invocation starts cold. */
  pools?: Informer<BrowserPoolObject>;
  templates: PodTemplateSettings;
  maxConcurrentInvocations: number;
  maxRunningInvocationsPerProject: MaxRunningPerProject;
  metrics: Metrics;
  log: Logger;
  /** Asks for these invocations (namespace/name) to be looked at again: the next in line when a slot was freed. */
  requeue: (keys: string[]) => void;
  clock?: Clock;
}

export class InvocationReconciler implements Reconciler {
  /** Invocations admitted by this process whose pods the cache may not show yet. */
  private readonly admitted = new Set<string>();
  /** Invocations this process just finished, which the cache may still show as running. */
  private readonly finished = new Set<string>();
  /** When this process admitted each running invocation and how its browser started, for the phase metrics. */
  private readonly started = new Map<string, { admittedAt: number; start: 'warm' | 'cold' }>();
  private readonly now: Clock;
  /** Changes of `admitted` and `finished`, which with the cache's version say when the plan is stale. */
  private admissionChanges = 0;
  /** The admission order of the current state, shared by every waiting invocation's reconcile. */
  private plan?: { at: string; plan: AdmissionPlan };

  constructor(private readonly deps: InvocationReconcilerDeps) {
    this.now = deps.clock ?? systemClock;
  }

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const { cluster } = this.deps;
    const inv = await cluster.resource<InvocationObject>(Kinds.Invocation).get(namespace, name);
    const live = inv && !inv.metadata.deletionTimestamp;
    const active = live && !isTerminal(inv);
    const podName = live ? inv.status?.podName : undefined;
    let named = podName ? this.deps.pods.get(namespace, podName) ?? (await cluster.resource<PodObject>(Kinds.Pod).get(namespace, podName)) : undefined;
    // The cache may not show a claim made a moment ago: a member that looks unclaimed is read afresh.
    if (named && !isClaimedFor(named, name)) named = await cluster.resource<PodObject>(Kinds.Pod).get(namespace, named.metadata.name);
    // A pool member the status names but that was not claimed for it (its claim lost a race or was cut short) is no pod of its.
    const pod = named && isClaimedFor(named, name) ? named : undefined;
    // Read after the pod: a pod reports before it exits, so a terminal pod without a report never sent one.
    const outcome = active || pod ? await cluster.resource(Kinds.ConfigMap).get(namespace, outcomeName(name)) : undefined;
    const report = active && outcome ? readOutcome(outcome) : undefined;
    // The pod of an ended invocation that reported may still be closing its session.
    const closing = !active && pod && outcome ? { reportStoredAt: Date.parse(outcome.metadata.creationTimestamp ?? ''), sessionRecorded: !!(await cluster.resource(Kinds.ConfigMap).get(namespace, sessionRecordsName(name))) } : undefined;

    const step = nextInvocationStep({ inv, pod, report, closing, now: this.now() });
    switch (step.action) {
      case 'forget':
        this.release(`${namespace}/${name}`);
        return;
      case 'clean-up':
        this.release(`${namespace}/${name}`);
        return this.deletePod(inv!);
      case 'finish':
        return this.finish(inv!, step.phase, step.status, report !== undefined);
      case 'retry':
        return this.retry(inv!, step.why);
      case 'admit':
        return this.admit(inv!);
      case 'mark-running':
        await this.setStatus(inv!, step.status);
        return { requeueAfterMs: Math.max(0, step.recheckAfterMs) };
      case 'wait':
        return { requeueAfterMs: step.recheckAfterMs };
    }
  }

  private async admit(inv: InvocationObject): Promise<Result | void> {
    const key = invocationKey(inv);
    // One whose status names a pod holds its slot already (a claim that did not go through is retried).
    if (!this.admitted.has(key) && !inv.status?.podName) {
      for (const done of this.finished) {
        const [ns, n] = done.split('/');
        const cached = this.deps.invocations.get(ns, n);
        if ((!cached || isTerminal(cached)) && this.finished.delete(done)) this.admissionChanges += 1;
      }
      // A slot freed elsewhere requeues this one; the delay is a safety net for missed signals.
      if (!this.mayAdmit(inv)) return { requeueAfterMs: QUEUE_RECHECK_MS * Math.max(1, Math.ceil(this.currentPlan().order.length / RECHECKS_PER_INTERVAL)) };
      this.admitted.add(key);
      this.admissionChanges += 1;
    }
    const attempt = (inv.status?.attempts ?? 0) + 1;
    let start: 'warm' | 'cold' = 'warm';
    try {
      if (!(await this.claimWarmMember(inv, attempt))) {
        start = 'cold';
        await this.startCold(inv, attempt);
      }
    } catch (err) {
      if (this.admitted.delete(key)) this.admissionChanges += 1;
      throw err;
    }
    const admittedAt = this.now();
    this.started.set(key, { admittedAt, start });
    const created = createdAt(inv);
    if (!Number.isNaN(created)) this.deps.metrics.invocationPhases.labels('queued', start).observe(seconds(admittedAt - created));
    return { requeueAfterMs: (inv.spec.timeoutSeconds + POD_GRACE_SECONDS) * 1000 };
  }

  /**
   * Runs the invocation on a ready idle member of a pool that launches the way it asks. The
   * invocation names the member first and the member is claimed second, each write guarded by the
   * object's resourceVersion: of two replicas admitting one invocation only one names a member,
   * and of two invocations claiming one member only one gets it. A member already claimed for it
   * (a claim whose status update was lost) is reused. False when no member is free.
   */
  private async claimWarmMember(inv: InvocationObject, attempt: number): Promise<boolean> {
    const { pools, pods, metrics } = this.deps;
    if (!pools) return false;
    const members = pods.list((pod) => pod.metadata.namespace === inv.metadata.namespace && !!pod.metadata.labels?.[Labels.pool]);
    const adopted = existingClaim(inv, members);
    if (adopted) {
      await this.setStatus(inv, { phase: 'PENDING', podName: adopted.metadata.name, attempts: attempt });
      return true;
    }
    const now = this.now();
    const poolList = pools.list();
    for (const member of claimCandidates(inv, poolList, members, now)) {
      await this.setStatus(inv, { phase: 'PENDING', podName: member.metadata.name, attempts: attempt });
      // Claimed or removed meanwhile: try the next one.
      if (!(await this.claim(inv, member, poolList, now))) continue;
      metrics.invocationStarts.labels('warm').inc();
      return true;
    }
    return false;
  }

  /**
   * Writes the claim on `member`. One that loses to a write that left the member claimable (a
   * starting member's node reporting it running, its agent marking it ready) is made again on the
   * fresh member; false once another invocation has it, or it went or changed otherwise.
   */
  private async claim(inv: InvocationObject, member: PodObject, pools: BrowserPoolObject[], now: number): Promise<boolean> {
    const pods = this.deps.cluster.resource<PodObject>(Kinds.Pod);
    let current: PodObject | undefined = member;
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      try {
        await pods.update(claimedMember(current, inv, new Date(now)));
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        if (!isConflict(err)) throw err;
      }
      current = await pods.get(member.metadata.namespace, member.metadata.name);
      if (!current || claimCandidates(inv, pools, [current], now).length === 0) return false;
    }
    return false;
  }

  private async startCold(inv: InvocationObject, attempt: number): Promise<void> {
    const pod = browserPod(inv, attempt, this.deps.templates);
    await createPodWithToken(this.deps.cluster, pod, this.deps.templates.podTokenSecret);
    this.deps.metrics.invocationStarts.labels('cold').inc();
    await this.setStatus(inv, { phase: 'PENDING', podName: pod.metadata.name, attempts: attempt });
  }

  private async retry(inv: InvocationObject, why: string): Promise<Result> {
    await this.deletePod(inv);
    this.deps.log.warn({ invocation: inv.metadata.name, why }, 'browser pod lost; starting the invocation again');
    this.release(invocationKey(inv), true);
    await this.setStatus(inv, { phase: 'PENDING', podName: undefined, startedAt: undefined, expiresAt: undefined });
    return { requeueAfterMs: 0 };
  }

  /**
   * Writes the terminal status. The pod is deleted by the next reconcile ('clean-up', at once): the
   * status's watchers and readers are served first, not after the pod's deletion and what the node
   * does about it.
   */
  private async finish(inv: InvocationObject, phase: 'COMPLETED' | 'FAILED', patch: InvocationStatus, reported: boolean): Promise<Result> {
    await this.setStatus(inv, { endedAt: isoAt(this.now()), ...patch, phase });
    this.deps.metrics.invocations.labels(phase).inc();
    const created = createdAt(inv);
    if (!Number.isNaN(created)) this.deps.metrics.invocationDuration.observe(seconds(this.now() - created));
    if (reported) this.observePhases(inv, patch);
    this.finished.add(`${inv.metadata.namespace}/${inv.metadata.name}`);
    this.admissionChanges += 1;
    this.release(`${inv.metadata.namespace}/${inv.metadata.name}`, true);
    return { requeueAfterMs: 0 };
  }

  /**
   * The phases after admission of an invocation its pod reported on; the pod's timestamps come from
   * its own clock. Unknown after a restart of this process (it did not see the admission).
   */
  private observePhases(inv: InvocationObject, { startedAt, endedAt }: InvocationStatus): void {
    const admission = this.started.get(invocationKey(inv));
    const handlerStarted = Date.parse(startedAt ?? '');
    const handlerEnded = Date.parse(endedAt ?? '');
    if (!admission || Number.isNaN(handlerStarted) || Number.isNaN(handlerEnded)) return;
    const phases = this.deps.metrics.invocationPhases;
    phases.labels('start', admission.start).observe(seconds(handlerStarted - admission.admittedAt));
    phases.labels('handler', admission.start).observe(seconds(handlerEnded - handlerStarted));
    phases.labels('report', admission.start).observe(seconds(this.now() - handlerEnded));
  }

  /** Forgets an admission; when a slot was freed, the waiting invocations get another look. */
  private release(key: string, slotFreed = false): void {
    this.started.delete(key);
    const wasAdmitted = this.admitted.delete(key);
    if (wasAdmitted) this.admissionChanges += 1;
    if (wasAdmitted || slotFreed) {
      const plan = this.currentPlan();
      this.deps.requeue(plan.order.slice(0, Math.max(0, plan.free) + NEXT_IN_LINE));
    }
  }

  /** Admission by a plan worked out once per state of the cache and of this process's admissions. */
  private mayAdmit(candidate: InvocationObject): boolean {
    // One the cache does not show yet is placed as the newest, by a plan of its own.
    return mayAdmitBy(this.currentPlan(), candidate, this.admitted) ?? mayAdmit({ ...this.admissionState(), candidate });
  }

  private currentPlan(): AdmissionPlan {
    const at = `${this.deps.invocations.version}/${this.admissionChanges}`;
    if (this.plan?.at !== at) this.plan = { at, plan: admissionPlan(this.admissionState()) };
    return this.plan.plan;
  }

  private admissionState(): Omit<AdmissionInput, 'candidate'> {
    const { invocations, maxConcurrentInvocations: maxConcurrent, maxRunningInvocationsPerProject: maxRunningPerProject } = this.deps;
    return { invocations: invocations.list(), admitted: this.admitted, finished: this.finished, maxConcurrent, maxRunningPerProject };
  }

  private async setStatus(inv: InvocationObject, patch: InvocationStatus): Promise<void> {
    const status: InvocationStatus = { ...inv.status, ...patch, observedGeneration: inv.metadata.generation };
    for (const key of Object.keys(patch) as (keyof InvocationStatus)[]) if (patch[key] === undefined) delete status[key];
    status.conditions = setCondition(inv.status?.conditions, succeededCondition(status, inv.metadata.generation), new Date(this.now()));
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

const createdAt = (inv: InvocationObject): number => Date.parse(inv.metadata.annotations?.[CREATED_AT_ANNOTATION] ?? inv.metadata.creationTimestamp ?? '');
/** Seconds of a span in milliseconds; spans across two clocks may come out slightly negative. */
const seconds = (ms: number): number => Math.max(0, ms) / 1000;
