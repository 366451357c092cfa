// What the invocation reconciler does next, decided from what it observed: the Invocation, its
// browser pod, the pod's report, and the time. Pure, so every path is tested with a fake clock.
import { Annotations, Labels, type InvocationObject, type InvocationStatus } from '../../schemas/resources.js';
import { hasAgentExited, isPodTerminal, type PodObject } from '../../schemas/pod.js';
import type { InvocationOutcome } from '../../schemas/reports.js';
import { isTerminal, sessionClosing } from '../../functions/invocations.js';
import { isoAt } from '../runtime/clock.js';
import { POD_GRACE_SECONDS, SESSION_CLOSE_GRACE_MS } from '../../schemas/deadlines.js';
import { outOfMemoryCause } from './out-of-memory.js';
import { diskLimitCause } from './disk-limit.js';

/** A pod lost before it reported is started again until the invocation has had this many attempts. */
export const MAX_ATTEMPTS = 2;
/**
 * How long a report of our own failure (INTERNAL_ERROR) waits for its pod's agent to exit: a pod at
 * its memory limit may fail in any way (a system call refused memory, the browser crashed) before it
 * is killed and ends OOMKilled, and running out of memory is then the cause to give.
 */
export const AGENT_EXIT_WAIT_MS = 10_000;

export interface InvocationObservation {
  inv: InvocationObject | undefined;
  /** The invocation's current browser pod, if it still exists. */
  pod: PodObject | undefined;
  /** The pod's report; read after the pod, so a terminal pod without one never reported. */
  report: InvocationOutcome | undefined;
  /** Of an ended invocation whose pod reported: when the report was stored, and whether the session's records followed. */
  closing?: { reportStoredAt: number; sessionRecorded: boolean };
  now: number;
}

export type InvocationStep =
  /** Gone or being deleted: forget it. */
  | { action: 'forget' }
  /** Finished earlier: only its pod is left to delete (once it has closed its session). */
  | { action: 'clean-up' }
  | { action: 'finish'; phase: 'COMPLETED' | 'FAILED'; status: InvocationStatus }
  /** Its pod was lost before it reported; start it once more. */
  | { action: 'retry'; why: string }
  | { action: 'admit' }
  | { action: 'mark-running'; status: InvocationStatus; recheckAfterMs: number }
  | { action: 'wait'; recheckAfterMs: number };

export function nextInvocationStep({ inv, pod, report, closing, now }: InvocationObservation): InvocationStep {
  if (!inv || inv.metadata.deletionTimestamp) return { action: 'forget' };
  if (isTerminal(inv)) return cleanUpStep(pod, closing, now);
  // A report already in wins over a cancel that came after the handler ended.
  if (report) return reportStep(inv, report, pod, now);
  const cancelledAt = inv.metadata.annotations?.[Annotations.cancelRequestedAt];
  if (cancelledAt) {
    return { action: 'finish', phase: 'FAILED', status: { cause: { code: 'CANCELLED', message: `Cancelled on request at ${cancelledAt}` }, endedAt: isoAt(now) } };
  }
  if (!pod) {
    if (inv.status?.podName && inv.status.phase === 'RUNNING') return podLost(inv, 'its browser pod was deleted before it reported', now);
    return { action: 'admit' };
  }
  const pastLimit = isPodTerminal(pod) ? (outOfMemoryCause(pod) ?? diskLimitCause(pod)) : undefined;
  if (pastLimit) return { action: 'finish', phase: 'FAILED', status: { cause: pastLimit, endedAt: isoAt(now) } };
  if (isPodTerminal(pod)) return podLost(inv, `its browser pod ended (${pod.status?.reason ?? pod.status?.phase}) without reporting`, now);
  if (pod.status?.phase === 'Running' && inv.status?.phase !== 'RUNNING') {
    const status = { phase: 'RUNNING' as const, startedAt: isoAt(now), expiresAt: isoAt(now + inv.spec.timeoutSeconds * 1000) };
    return { action: 'mark-running', status, recheckAfterMs: deadlineOf({ ...inv, status: { ...inv.status, ...status } }) - now };
  }
  return deadlineStep(inv, now, pod);
}

/**
 * A pod that reported the outcome goes on to close the session (stop recording, store it, report
 * the session's records) and is deleted once it has, once its agent exited, or after
 * SESSION_CLOSE_GRACE_MS; any other pod of an ended invocation at once.
 */
function cleanUpStep(pod: PodObject | undefined, closing: InvocationObservation['closing'], now: number): InvocationStep {
  if (!closing || !sessionClosing({ outcomeReported: true, sessionRecorded: closing.sessionRecorded, pod })) return { action: 'clean-up' };
  const left = closing.reportStoredAt + SESSION_CLOSE_GRACE_MS - now;
  return left > 0 ? { action: 'wait', recheckAfterMs: left } : { action: 'clean-up' };
}

function reportStep(inv: InvocationObject, report: InvocationOutcome, pod: PodObject | undefined, now: number): InvocationStep {
  if (report.phase === 'COMPLETED' || report.cause?.code !== 'INTERNAL_ERROR' || !pod) return finishFromReport(inv, report, now);
  // A container killed at its limit says so before the pod ends (a Chromium sidecar in a cluster).
  const outOfMemory = outOfMemoryCause(pod);
  if (outOfMemory) return finishFromReport(inv, report, now, outOfMemory);
  // The report's time is the pod's clock: the invocation's deadline bounds the wait against a clock ahead.
  const waitUntil = Math.min(Date.parse(report.endedAt ?? '') + AGENT_EXIT_WAIT_MS, deadlineOf(inv, pod));
  if (!hasAgentExited(pod) && now < waitUntil) return { action: 'wait', recheckAfterMs: waitUntil - now };
  return finishFromReport(inv, report, now);
}

function finishFromReport(inv: InvocationObject, report: InvocationOutcome, now: number, cause = report.cause): InvocationStep {
  return {
    action: 'finish',
    phase: report.phase === 'COMPLETED' ? 'COMPLETED' : 'FAILED',
    status: { results: report.results, cause, startedAt: report.startedAt ?? inv.status?.startedAt, endedAt: report.endedAt ?? isoAt(now) },
  };
}

/** A lost pod is retried while attempts remain; then the invocation fails, saying why. */
export function podLost(inv: InvocationObject, why: string, now: number): InvocationStep {
  if ((inv.status?.attempts ?? 1) < MAX_ATTEMPTS) return { action: 'retry', why };
  const handlerStarted = inv.status?.phase === 'RUNNING';
  return {
    action: 'finish',
    phase: 'FAILED',
    status: { cause: { code: 'INTERNAL_ERROR', message: `The invocation could not finish: ${why}${handlerStarted ? '' : ' (the handler never started)'}` }, endedAt: isoAt(now) },
  };
}

/**
 * The moment the controller gives up on a pod that has not reported: timeout plus grace after the
 * handler started, or before that after the pod was made (or, a pool member, claimed) for it. Never
 * from the invocation's creation: time spent waiting in the queue is not the pod's to start in.
 */
export function deadlineOf(inv: InvocationObject, pod?: PodObject): number {
  const podSince = pod?.metadata.annotations?.[Annotations.claimedAt] ?? pod?.metadata.creationTimestamp;
  const reference = Date.parse(inv.status?.startedAt ?? podSince ?? inv.metadata.creationTimestamp ?? '');
  return reference + (inv.spec.timeoutSeconds + POD_GRACE_SECONDS) * 1000;
}

/** `pod`: the invocation's pod; a claimed pool member that never reports is our failure, not a timeout of the handler's. */
export function deadlineStep(inv: InvocationObject, now: number, pod?: PodObject): InvocationStep {
  const left = deadlineOf(inv, pod) - now;
  // An unreadable start time counts as started now: wait a whole deadline rather than fail at once.
  if (Number.isNaN(left)) return { action: 'wait', recheckAfterMs: (inv.spec.timeoutSeconds + POD_GRACE_SECONDS) * 1000 };
  if (left > 0) return { action: 'wait', recheckAfterMs: left };
  if (pod && pod.status?.phase !== 'Running' && inv.status?.phase !== 'RUNNING') {
    const why = notRunningReason(pod);
    const message = `The browser pod ${pod.metadata.name} never started: still ${pod.status?.phase ?? 'Pending'} after the timeout of ${inv.spec.timeoutSeconds} s and ${POD_GRACE_SECONDS} s of grace${why ? ` (${why})` : ''}; the handler never ran`;
    return { action: 'finish', phase: 'FAILED', status: { cause: { code: 'INTERNAL_ERROR', message }, endedAt: isoAt(now) } };
  }
  if (pod?.metadata.labels?.[Labels.pool]) {
    const message = `The warm browser pod ${pod.metadata.name} claimed for it never reported within the timeout of ${inv.spec.timeoutSeconds} s and ${POD_GRACE_SECONDS} s of grace`;
    return { action: 'finish', phase: 'FAILED', status: { cause: { code: 'INTERNAL_ERROR', message }, endedAt: isoAt(now) } };
  }
  return {
    action: 'finish',
    phase: 'FAILED',
    status: { cause: { code: 'TIMED_OUT', message: `The invocation did not finish within its timeout of ${inv.spec.timeoutSeconds} s` }, endedAt: isoAt(now) },
  };
}

/** What keeps a pod from running, as the scheduler or the kubelet put it. */
function notRunningReason(pod: PodObject): string | undefined {
  const unscheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (unscheduled) return [unscheduled.reason, unscheduled.message].filter(Boolean).join(': ') || undefined;
  const waiting = pod.status?.containerStatuses?.map((c) => c.state?.waiting).find((w) => w?.reason);
  if (waiting) return [waiting.reason, waiting.message].filter(Boolean).join(': ');
  return pod.spec.nodeName ? `assigned to node ${pod.spec.nodeName}, which did not start it` : 'not assigned to any node';
}
