// The memory cgroups a node agent in this test process made for its pods (src/runtime/node-agent/
// memory-cgroups.ts): under the process's own memory cgroup, in browserfn-<pid>-* folders.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { detectMemoryCgroups } from '../../src/runtime/node-agent/memory-cgroups.js';

export interface MemoryCgroupsHere {
  /** This process's own memory cgroup. */
  own: string;
  version: 1 | 2;
}

/** Where pod cgroups of this process go, or why this machine gives none (the caller skips, saying so). */
export function memoryCgroupsHere(): MemoryCgroupsHere | { reason: string } {
  const support = detectMemoryCgroups();
  if (!support.available) return { reason: support.reason };
  support.cgroups.close();
  return { own: dirname(support.cgroups.parent), version: support.cgroups.version };
}

/** Pod cgroup folders made by node agents of this process. */
export function podCgroups(here: MemoryCgroupsHere): string[] {
  return readdirSync(here.own)
    .filter((name) => name.startsWith(`browserfn-${process.pid}-`))
    .flatMap((parent) => readdirSync(join(here.own, parent), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(here.own, parent, e.name)));
}

export function memoryLimitOf(here: MemoryCgroupsHere, dir: string): number {
  return Number(readFileSync(join(dir, here.version === 1 ? 'memory.limit_in_bytes' : 'memory.max'), 'utf8').trim());
}

/** Command lines of the processes in a cgroup. */
export function commandsIn(dir: string): string[] {
  const procs = join(dir, 'cgroup.procs');
  if (!existsSync(procs)) return [];
  return readFileSync(procs, 'utf8').split('\n').filter(Boolean).flatMap((pid) => {
    try {
      return [readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')];
    } catch {
      return [];
    }
  });
}
