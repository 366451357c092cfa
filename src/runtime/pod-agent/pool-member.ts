// A warm pool member before its invocation: everything that needs no invocation is started, then
// the agent waits for the control plane to hand it one. A member whose browser or code loader dies
// while it waits ends without a report (its pod fails and the pool replaces it), and so does one
// told to stop: it is never handed an invocation it cannot serve.
//
// The member asks from its start, without counting as ready until it is: with every ready member
// taken, an invocation claims one still starting, which then gets its input and code at once and
// loads them while its browser comes up, rather than after all of its preparation.
import type { Logger } from '../../config/logger.js';
import type { ControlPlaneClient } from '../agent-common/control-plane-client.js';
import type { InvocationRun } from './invocation-run.js';

/** How long one ask for an assignment may wait at the control plane. */
export const ASSIGNMENT_WAIT_SECONDS = 20;

export type MemberWait = { assigned: true; input: unknown } | { assigned: false; why: string };

export async function waitForAssignment(run: InvocationRun, control: ControlPlaneClient, log: Logger, stop: AbortSignal): Promise<MemberWait> {
  const started = performance.now();
  const ended = run.outcome.then((outcome) => (outcome.phase === 'FAILED' ? outcome.cause.message : 'ended'));
  const stopped = new Promise<string>((resolve) => stop.addEventListener('abort', () => resolve('stopped while waiting'), { once: true }));
  const gaveUp = Promise.race([ended, stopped]);
  let ready = false;
  let waiting = true;
  // A preparation that fails ends the run, which `ended` reports.
  const prepared = run.prepare().then(
    () => {
      ready = true;
      if (waiting) log.info({ ms: Math.round(performance.now() - started) }, 'pool member ready; waiting to be claimed');
    },
    () => undefined,
  );
  try {
    for (;;) {
      const askedReady = ready;
      // An ask made while starting gives way, once prepared, to one that says the member is ready.
      const superseded = new AbortController();
      if (!askedReady) void prepared.then(() => superseded.abort());
      const ask = control.waitForAssignment(ASSIGNMENT_WAIT_SECONDS, { ready: askedReady, signal: superseded.signal }).catch((error: unknown) => {
        if (superseded.signal.aborted) return undefined;
        throw error;
      });
      const next = await Promise.race([ask.then((input) => ({ input })), gaveUp.then((reason) => ({ reason }))]);
      if ('reason' in next) return { assigned: false, why: next.reason };
      // Claimed in the moment the browser died: no report, so the invocation is started again elsewhere.
      if (run.ended) return { assigned: false, why: 'claimed after the member had ended' };
      if (next.input !== undefined) {
        if (!askedReady) log.info({ ms: Math.round(performance.now() - started) }, 'pool member claimed while it starts');
        return { assigned: true, input: next.input };
      }
    }
  } catch (error) {
    return { assigned: false, why: `could not wait for an assignment: ${(error as Error).message}` };
  } finally {
    waiting = false;
  }
}
