// Finds processes that belong to a folder: how tests prove nothing was left running after a service
// stopped. A pod agent's command line need not name its pod folder (it gets it through the
// environment and runs in it), so the working directory counts as much as the command line.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { processStat } from '../../src/runtime/sandbox/process-group.js';

export interface FoundProcess {
  pid: number;
  cmdline: string;
  cwd: string;
}

/** Living processes (zombies do not count) whose working directory is under `dir` or whose command line mentions it. */
export function processesUnder(dir: string): FoundProcess[] {
  const found: FoundProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (isZombie(entry)) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const cwd = readlinkOrEmpty(`/proc/${entry}/cwd`);
      if (cmdline.includes(dir) || cwd === dir || cwd.startsWith(dir + '/')) found.push({ pid: Number(entry), cmdline, cwd });
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/**
 * Fails when a process of `dir` is still running once the kernel had a moment to reap what was
 * killed; such leftovers are killed (they are this test run's own), so they cannot disturb later tests.
 */
export async function assertNoProcessesUnder(dir: string, after: string): Promise<void> {
  const deadline = Date.now() + 3_000;
  let left = processesUnder(dir);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = processesUnder(dir);
  }
  if (left.length === 0) return;
  for (const { pid } of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`${left.length} process(es) of ${dir} outlived ${after}:\n${left.map((p) => `  ${p.pid} cwd=${p.cwd} ${p.cmdline.slice(0, 300)}`).join('\n')}`);
}

/** The processes under `dir` and all their descendants, e.g. what runs inside a pod's sandbox (whose paths the host does not see as its own). */
export function processTreeUnder(dir: string): FoundProcess[] {
  return processTreeOf(new Set(processesUnder(dir).map((p) => p.pid)));
}

/** Living processes that are `roots` or descend from one of them. */
export function processTreeOf(roots: ReadonlySet<number>): FoundProcess[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const inTree = (pid: number): boolean => {
    for (let at: number | undefined = pid; at !== undefined && at > 1; at = parentOf.get(at)) if (roots.has(at)) return true;
    return false;
  };
  const found: FoundProcess[] = [];
  for (const pid of parentOf.keys()) {
    if (!inTree(pid)) continue;
    try {
      if (isZombie(String(pid))) continue;
      found.push({ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '), cwd: readlinkOrEmpty(`/proc/${pid}/cwd`) });
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

function isZombie(pid: string): boolean {
  return processStat(Number(pid))?.state === 'Z';
}

function readlinkOrEmpty(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

/** A process's real uid on the host, or undefined once it has gone. */
export function realUidOf(pid: number): number | undefined {
  try {
    return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}
