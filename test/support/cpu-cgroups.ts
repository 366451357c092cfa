// The cpu cgroups a node agent in this test process made for its pods (src/runtime/node-agent/
// cpu-cgroups.ts): under the process's own cgroup in the cpu hierarchy, in browserfn-<pid>-* folders.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { detectCpuCgroups } from '../../src/runtime/node-agent/cpu-cgroups.js';
import { detectMemoryCgroups } from '../../src/runtime/node-agent/memory-cgroups.js';

export interface CpuCgroupsHere {
  /** This process's own cgroup in the cpu hierarchy. */
  own: string;
  version: 1 | 2;
}

/** Where pod cpu cgroups of this process go, or why this machine gives none (the caller skips, saying so). */
export function cpuCgroupsHere(): CpuCgroupsHere | { reason: string } {
  const memory = detectMemoryCgroups();
  const support = detectCpuCgroups(memory.available ? memory.cgroups : undefined);
  if (memory.available) memory.cgroups.close();
  if (!support.available) return { reason: support.reason };
  support.cgroups.close();
  return { own: dirname(support.cgroups.parents.cpu), version: support.cgroups.version };
}

/** The cpu cgroup folder of a running pod of this process (named `<namespace>_<pod>_<uid>`), if it has one. */
export function podCpuCgroup(here: CpuCgroupsHere, namespace: string, podName: string): string | undefined {
  for (const parent of readdirSync(here.own).filter((name) => name.startsWith(`browserfn-${process.pid}-`))) {
    const found = readdirSync(join(here.own, parent)).find((name) => name.startsWith(`${namespace}_${podName}_`));
    if (found) return join(here.own, parent, found);
  }
  return undefined;
}

/** How the kernel schedules a cgroup: in the idle class, and at what weight (v1 cpu.shares, v2 cpu.weight). */
export function schedulingOf(here: CpuCgroupsHere, dir: string): { idle: boolean; weight: number } {
  const read = (file: string) => Number(readFileSync(join(dir, file), 'utf8').trim());
  return { idle: existsSync(join(dir, 'cpu.idle')) && read('cpu.idle') === 1, weight: read(here.version === 1 ? 'cpu.shares' : 'cpu.weight') };
}
