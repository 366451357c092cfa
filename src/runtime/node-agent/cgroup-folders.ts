// The cgroup folders a node agent makes, in any hierarchy: one folder of its own per agent (named
// for its process, so a later agent removes those of one that was killed), a folder per pod below
// it, and a pod folder's removal once every process in it is killed.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const PARENT_PREFIX = 'browserfn-';
/** How long a pod's processes get to leave its cgroup after SIGKILL before it is left behind, said loudly. */
const REMOVE_LIMIT_MS = 10_000;

/** A new folder for one node agent's pods below `own` (several agents may run in one process: tests). */
export function newAgentFolder(own: string): string {
  const parent = join(own, `${PARENT_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(parent);
  return parent;
}

/** Folders below `own` of node agents whose process is gone: their pods died with them. */
export function removeStaleAgentFolders(own: string): void {
  for (const name of readdirSync(own)) {
    const pid = new RegExp(`^${PARENT_PREFIX}(\\d+)-`).exec(name)?.[1];
    if (!pid || isAlive(Number(pid))) continue;
    const parent = join(own, name);
    for (const child of readdirSync(parent, { withFileTypes: true })) {
      if (child.isDirectory()) void removeCgroup(join(parent, child.name), 'stale').catch(() => undefined);
    }
    try {
      rmdirSync(parent);
    } catch {
      // Its pods' cgroups are still emptying; the next start tries again.
    }
  }
}

/** Process IDs in a cgroup folder (none once it is gone). */
export function pidsIn(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** SIGKILL to every process in a cgroup folder (those waiting at a memory limit wake for it). */
export function killAllIn(dir: string): void {
  for (const pid of pidsIn(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

/** Kills what is left in a pod's `kind` cgroup and removes it (gone already counts); throws when processes would not leave. */
export async function removeCgroup(dir: string, kind: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    killAllIn(dir);
    try {
      rmdirSync(dir);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY' || Date.now() - started > REMOVE_LIMIT_MS) {
        throw new Error(`could not remove the pod's ${kind} cgroup ${dir}: ${(err as Error).message} (processes left: ${pidsIn(dir).join(', ') || 'none'})`);
      }
    }
    await sleep(20);
  }
}

/**
 * v2 gives children a controller only through the parent's subtree_control, which a cgroup that
 * holds processes itself cannot have (the server's own, unless it is the root): then it says so.
 */
export function enableController(dir: string, controller: string): void {
  try {
    writeFileSync(join(dir, 'cgroup.subtree_control'), `+${controller}`);
  } catch (err) {
    throw new Error(`cannot enable the ${controller} controller for ${dir}'s children (${(err as Error).message}); run the server in a cgroup of its own whose parent delegates ${controller}`);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
