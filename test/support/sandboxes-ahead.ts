// Finds a service's sandboxes made ahead (src/runtime/node-agent/spare-sandboxes.ts) from its log and
// /proc: for tests of them, and for the bench, whose cold invocations start once one is ready.
import { AHEAD_OF_POD } from '../../src/runtime/node-agent/pod-launcher.js';
import { processTreeOf, type FoundProcess } from './processes.js';
import { waitFor, type TestService } from './service.js';

export interface SandboxMadeAhead {
  /** Its outermost process on the host. */
  pid: number;
  /** Its network's processes on the host (pasta, the holder). */
  networkPids: number[];
  /** Its folder on the host. */
  dir: string;
}

/** Each sandbox the service's node agent had ready, as its log says (the service captures its log). */
export function sandboxesMadeAhead(svc: TestService): SandboxMadeAhead[] {
  return svc.logLines
    .map((line) => JSON.parse(line) as { msg?: string; what?: string } & SandboxMadeAhead)
    .filter((entry) => entry.msg === 'made ahead' && entry.what === 'pod sandboxes')
    .map(({ pid, networkPids, dir }) => ({ pid, networkPids, dir }));
}

/**
 * The launcher of a sandbox made ahead below `roots`, as long as no pod has taken it: its own
 * command line is `node <launcher> --ahead-of-pod …` until then, and its pod's after (bwrap's and
 * nsenter's around it still name the launcher's).
 */
export function launcherWaitingBelow(roots: ReadonlySet<number>): FoundProcess | undefined {
  return processTreeOf(roots).find((p) => p.cmdline.split(' ')[2] === AHEAD_OF_POD);
}

/** The sandbox made ahead that is ready now (no pod has taken it), other than the one whose launcher is `not`. */
export function sandboxReadyAhead(svc: TestService, not?: number): Promise<SandboxMadeAhead & { launcher: FoundProcess }> {
  return waitFor('a sandbox made ahead, ready', async () => {
    const last = sandboxesMadeAhead(svc).at(-1);
    const launcher = last && launcherWaitingBelow(new Set([last.pid]));
    return last && launcher && launcher.pid !== not ? { ...last, launcher } : undefined;
  }, 60_000, 20);
}
