// Children that run untrusted or heavy code (user bundles, Chromium, npm) start `detached`, so each
// leads its own process group and one signal to `-pid` reaches everything it spawned.
import type { ChildProcess } from 'node:child_process';

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Remembers a group so it is killed even if this process exits without cleaning up. */
export function trackProcessGroup(pid: number): void {
  liveGroups.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const group of liveGroups) signalProcessGroup(group, 'SIGKILL');
    });
  }
}

export function signalProcessGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Resolves once the child has exited (immediately if it already has). */
export function exitOf(child: ChildProcess): Promise<ExitStatus> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
}

/** SIGKILLs the child's whole group and waits for the child itself to be reaped. */
export async function killProcessGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const exited = exitOf(child);
  signalProcessGroup(child.pid, 'SIGKILL');
  await exited;
  liveGroups.delete(child.pid);
}

export function describeExit(status: ExitStatus): string {
  return status.signal ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
}
