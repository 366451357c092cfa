// Children that run untrusted or heavy code (user bundles, Chromium, npm) start `detached`, so each
// leads its own process group and one signal to `-pid` reaches everything it spawned.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/**
 * SIGKILLs the child's whole group and waits until the child is reaped and no other member of
 * the group still runs (SIGKILL reaches each member on its own time; Chromium has many).
 */
export async function killProcessGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const exited = exitOf(child);
  signalProcessGroup(child.pid, 'SIGKILL');
  await exited;
  const deadline = Date.now() + GROUP_EXIT_WAIT_MS;
  while (groupMembers(child.pid).length > 0 && Date.now() < deadline) {
    signalProcessGroup(child.pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  liveGroups.delete(child.pid);
}

const GROUP_EXIT_WAIT_MS = 5000;

/**
 * Asks a child that ends when its stdin closes to end (a sandbox's launcher, a network's holder);
 * `kill` once that takes longer than `graceMs`. Settles once it has ended.
 */
export async function endByClosingStdin(child: ChildProcess, ended: Promise<void>, kill: () => void, graceMs: number): Promise<void> {
  child.stdin?.end();
  const timer = setTimeout(kill, graceMs);
  await ended;
  clearTimeout(timer);
}

/** Running (not zombie) members of a process group, from /proc; empty where /proc is absent. */
export function groupMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processStat(Number(entry));
    if (stat?.pgrp === pgid && stat.state !== 'Z') members.push(Number(entry));
  }
  return members;
}

/**
 * Whether the process still lives: not a zombie, and not on its way out either. A SIGKILLed
 * Chromium closes its sockets while the kernel is still freeing its memory, so its clients see
 * their connections reset tens of milliseconds before it turns zombie.
 */
export function processLives(pid: number): boolean {
  const stat = processStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X' && (stat.flags & PF_EXITING) === 0;
}

/** The kernel's task flag for a process that has begun to exit (include/linux/sched.h). */
const PF_EXITING = 0x4;

export interface ProcessStat {
  state: string;
  pgrp: number;
  flags: number;
}

/** The fields of /proc/<pid>/stat used here; undefined once the process is gone (or without /proc). */
export function processStat(pid: number): ProcessStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid pgrp session tty_nr tpgid flags …; comm may hold spaces, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], pgrp: Number(fields[2]), flags: Number(fields[6]) };
  } catch {
    return undefined;
  }
}

/**
 * Kills every process whose working directory is under `dir` or whose command line names it: what
 * a pod left behind should its agent have died without cleaning up.
 */
export function killProcessesUnder(dir: string): void {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cwd = readlinkOrEmpty(`/proc/${entry}/cwd`);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cwd === dir || cwd.startsWith(dir + '/') || cmdline.includes(dir)) process.kill(Number(entry), 'SIGKILL');
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
}

function readlinkOrEmpty(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

export function describeExit(status: ExitStatus): string {
  return status.signal ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
}
