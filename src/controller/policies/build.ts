// What the build reconciler does next, and how a build pod's report becomes the Build's outcome.
// Pure, so every path is tested with a fake clock.
import type { BuildObject, BuildPhase } from '../../schemas/resources.js';
import { isPodTerminal, type PodObject } from '../../schemas/pod.js';
import type { BuildReport, BuiltFunctionReport } from '../../schemas/reports.js';
import { BUILD_TIMEOUT_MS } from '../../schemas/deadlines.js';

/** How long a new Build may wait for its upload to be stored. */
export const ARCHIVE_WAIT_MS = 60 * 1000;
const ARCHIVE_RECHECK_MS = 250;
const SLOT_RECHECK_MS = 1000;

export interface BuildObservation {
  build: BuildObject | undefined;
  /** The build pod's report has been stored. */
  hasOutput: boolean;
  /** The uploaded archive has been stored. */
  hasArchive: boolean;
  pod: PodObject | undefined;
  /** Build pods running now, of every Build. */
  runningBuildPods: number;
  maxConcurrentBuilds: number;
  now: number;
}

export type BuildStep =
  | { action: 'none' }
  /** Finished: only its pod is left to delete. */
  | { action: 'clean-up' }
  | { action: 'finish-from-output' }
  | { action: 'start-pod'; markRunning: boolean; recheckAfterMs: number }
  | { action: 'fail'; code: string; message: string }
  | { action: 'wait'; recheckAfterMs: number };

const isFinished = (phase: BuildPhase): boolean => phase === 'COMPLETED' || phase === 'FAILED';

export function nextBuildStep(o: BuildObservation): BuildStep {
  const { build, pod, now } = o;
  if (!build || build.metadata.deletionTimestamp) return { action: 'none' };
  const phase = build.status?.phase ?? 'PENDING';
  if (isFinished(phase)) return { action: 'clean-up' };
  if (o.hasOutput) return { action: 'finish-from-output' };
  if (!pod) {
    // The façade stores the upload right after the Build; wait for it rather than start a pod without it.
    if (!o.hasArchive) {
      const age = now - Date.parse(build.metadata.creationTimestamp ?? '');
      if (age < ARCHIVE_WAIT_MS) return { action: 'wait', recheckAfterMs: ARCHIVE_RECHECK_MS };
      return { action: 'fail', code: 'INTERNAL_ERROR', message: 'The uploaded archive is missing; publish again' };
    }
    if (o.runningBuildPods >= o.maxConcurrentBuilds) return { action: 'wait', recheckAfterMs: SLOT_RECHECK_MS };
    return { action: 'start-pod', markRunning: phase === 'PENDING', recheckAfterMs: BUILD_TIMEOUT_MS };
  }
  if (isPodTerminal(pod)) {
    return { action: 'fail', code: 'INTERNAL_ERROR', message: `The build process ended without reporting (${pod.status?.reason ?? pod.status?.phase}); see the build logs` };
  }
  const startedAt = Date.parse(build.status?.startedAt ?? build.metadata.creationTimestamp ?? '');
  const left = startedAt + BUILD_TIMEOUT_MS - now;
  if (Number.isNaN(left)) return { action: 'wait', recheckAfterMs: BUILD_TIMEOUT_MS };
  if (left <= 0) return { action: 'fail', code: 'TIMED_OUT', message: `The build did not finish within ${BUILD_TIMEOUT_MS / 60000} minutes` };
  return { action: 'wait', recheckAfterMs: left };
}

export type BuildOutcome = { fail: { code: string; message: string } } | { publish: BuiltFunctionReport[] };

/** The Functions a successful report publishes (those the Build asked for), or why the Build failed. */
export function buildOutcome(build: BuildObject, report: BuildReport): BuildOutcome {
  if (report.phase !== 'COMPLETED') return { fail: { code: report.cause?.code ?? 'INTERNAL_ERROR', message: report.cause?.message ?? 'The build failed' } };
  const wanted = build.spec.functionNames;
  const functions = (report.functions ?? []).filter((fn) => !wanted || wanted.includes(fn.name));
  const missing = (wanted ?? []).filter((name) => !functions.some((fn) => fn.name === name));
  if (missing.length > 0) {
    const found = (report.functions ?? []).map((fn) => `"${fn.name}"`).join(', ') || 'none';
    return { fail: { code: 'NO_MANIFESTS_FOUND', message: `The source does not define ${missing.map((n) => `"${n}"`).join(', ')} with defineFn (it defines ${found})` } };
  }
  return { publish: functions };
}
