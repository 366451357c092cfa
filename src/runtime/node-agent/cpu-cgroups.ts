// Each pod's CPU shared as a kubelet shares it (pod-cpu.ts): a cgroup of its own in the cpu
// hierarchy, at the weight of its requests and the quota of its limits, entered with its memory
// cgroup before the pod's first process execs (cgroup-entry.ts). Without it every pod process
// competed with the server's own threads one for one, so a pod with many busy processes took the
// node. A pool member waiting for an invocation runs in the kernel's idle class (cpu.idle, else the
// lowest weight) until it is claimed: its browser's start and whatever its preloaded code does
// while it waits take only CPU nothing else wants, and its CPU time, counted in the cpuacct
// hierarchy (v1) or cpu.stat (v2), is left out of how busy the node is when pools decide whether to
// make members ahead of demand (cpu-use.ts).
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { controllerCgroup, parseMountinfo, parseProcCgroup, v1CgroupDir, type ControllerCgroup } from './cgroup-paths.js';
import { enableController, newAgentFolder, removeCgroup, removeStaleAgentFolders } from './cgroup-folders.js';
import { cgroupUsageMicros } from './cpu-use.js';
import type { MemoryCgroups } from './memory-cgroups.js';
import { MAX_SHARES, MIN_SHARES, QUOTA_PERIOD_MICROS, sharesToWeight, type PodCpuShare } from './pod-cpu.js';

export type CpuCgroupSupport = { available: true; cgroups: CpuCgroups } | { available: false; reason: string };

export interface CpuCgroupLayout extends ControllerCgroup {
  /** Where v1 counts CPU time: the server's cgroup in the cpuacct hierarchy (the same folder where both share one); undefined where it is not mounted. */
  ownUsage?: string;
}

/**
 * Finds the server's cpu cgroup and makes the folder its pods' cgroups go in; says why not when it
 * cannot. On cgroup v2 a process is in one cgroup only, so a pod's memory and CPU settings share the
 * folder `memory` makes when that is v2 as well.
 */
export function detectCpuCgroups(memory?: MemoryCgroups): CpuCgroupSupport {
  try {
    const layout = cpuCgroupLayout(readFileSync('/proc/self/cgroup', 'utf8'), readFileSync('/proc/self/mountinfo', 'utf8'));
    if (typeof layout === 'string') return { available: false, reason: layout };
    let cgroups: CpuCgroups;
    if (layout.version === 2) {
      if (!readFileSync(join(layout.own, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu')) {
        return { available: false, reason: `cgroup v2 without the cpu controller delegated to ${layout.own}` };
      }
      enableController(layout.own, 'cpu');
      const shared = memory?.version === 2 ? memory.parent : undefined;
      if (!shared) removeStaleAgentFolders(layout.own);
      const parent = shared ?? newAgentFolder(layout.own);
      enableController(parent, 'cpu');
      write(parent, 'cpu.weight', sharesToWeight(nodeShares()));
      cgroups = new CpuCgroups(2, { cpu: parent }, shared === undefined);
    } else {
      for (const own of new Set([layout.own, layout.ownUsage])) if (own) removeStaleAgentFolders(own);
      const parent = newAgentFolder(layout.own);
      write(parent, 'cpu.shares', nodeShares());
      const usage = layout.ownUsage === undefined ? undefined : layout.ownUsage === layout.own ? parent : newAgentFolder(layout.ownUsage);
      cgroups = new CpuCgroups(1, { cpu: parent, usage }, true);
    }
    try {
      // A trial pod cgroup: the weight and idle files must be writable, not merely the folder.
      void cgroups.create('cpu-trial', { shares: 1024, quotaMicros: QUOTA_PERIOD_MICROS }, true).destroy();
    } catch (err) {
      cgroups.close();
      throw err;
    }
    return { available: true, cgroups };
  } catch (err) {
    return { available: false, reason: `the cpu cgroup cannot be delegated to pods: ${(err as Error).message}` };
  }
}

/** The cpu hierarchy (v1 preferred on hybrid machines) and the server's place in it, or why there is none. */
export function cpuCgroupLayout(procCgroup: string, mountinfo: string): CpuCgroupLayout | string {
  const memberships = parseProcCgroup(procCgroup);
  const mounts = parseMountinfo(mountinfo);
  const layout = controllerCgroup(memberships, mounts, 'cpu');
  if (typeof layout === 'string' || layout.version === 2) return layout;
  return { ...layout, ownUsage: v1CgroupDir(memberships, mounts, 'cpuacct')?.dir };
}

/** The cpu cgroups of one node agent's pods. */
export class CpuCgroups {
  constructor(
    readonly version: 1 | 2,
    /** Folders of this agent's pod cgroups: in the cpu hierarchy, and (v1) where CPU time is counted. */
    readonly parents: { cpu: string; usage?: string },
    /** False where the folders are the memory cgroups' (v2), which remove them. */
    private readonly ownsParents: boolean,
  ) {}

  /** A cgroup for one pod at `share`; a waiting pool member's starts in the idle class. */
  create(name: string, share: PodCpuShare, waiting: boolean): PodCpuCgroup {
    const cpu = join(this.parents.cpu, name);
    const usage = this.version === 2 || this.parents.usage === this.parents.cpu ? cpu : this.parents.usage && join(this.parents.usage, name);
    const made: string[] = [];
    try {
      for (const dir of new Set([cpu, usage ?? cpu])) {
        if (this.ownsParents || !existsSync(dir)) {
          mkdirSync(dir);
          made.push(dir);
        }
      }
      const group = new PodCpuCgroup(this.version, cpu, usage, share);
      if (share.quotaMicros !== undefined) setQuota(this.version, cpu, share.quotaMicros);
      group.setWaiting(waiting);
      return group;
    } catch (err) {
      for (const dir of made.reverse()) rmdirSync(dir);
      throw err;
    }
  }

  /** Removes the agent's folders once its pods' cgroups are gone. */
  close(): void {
    if (!this.ownsParents) return;
    for (const parent of new Set([this.parents.cpu, this.parents.usage])) {
      if (!parent) continue;
      try {
        rmdirSync(parent);
      } catch {
        // A pod cgroup left behind was reported when its pod ended.
      }
    }
  }
}

export class PodCpuCgroup {
  #destroyed: Promise<void> | undefined;
  #waiting: boolean | undefined;

  constructor(
    private readonly version: 1 | 2,
    readonly dir: string,
    /** Where its CPU time is counted (cpuacct's folder on v1, the same folder on v2); undefined where nothing counts it. */
    private readonly usageDir: string | undefined,
    readonly share: PodCpuShare,
  ) {}

  /** Its folders: in the cpu hierarchy, and where its CPU time is counted when that is another (v1 cpuacct). */
  private get dirs(): string[] {
    return [...new Set([this.dir, this.usageDir ?? this.dir])];
  }

  /** The files a process writes its pid into to enter the cgroup (cgroup-entry.ts). */
  get procsFiles(): string[] {
    return this.dirs.map((dir) => join(dir, 'cgroup.procs'));
  }

  get waiting(): boolean {
    return this.#waiting === true;
  }

  /**
   * A waiting member in the idle class (leaving it restores the default weight, so the pod's own
   * is written after); without cpu.idle (kernels before 5.15), at the lowest weight instead.
   */
  setWaiting(waiting: boolean): void {
    if (this.#waiting === waiting) return;
    const idleClass = existsSync(join(this.dir, 'cpu.idle'));
    if (idleClass) write(this.dir, 'cpu.idle', waiting ? 1 : 0);
    if (!waiting || !idleClass) {
      const shares = waiting ? MIN_SHARES : this.share.shares;
      if (this.version === 1) write(this.dir, 'cpu.shares', shares);
      else write(this.dir, 'cpu.weight', sharesToWeight(shares));
    }
    this.#waiting = waiting;
  }

  /** The CPU time (µs) its processes have used; undefined where nothing counts it, or it is gone. */
  usedMicros(): number | undefined {
    if (this.usageDir === undefined) return undefined;
    const file = join(this.usageDir, this.version === 1 ? 'cpuacct.usage' : 'cpu.stat');
    try {
      return cgroupUsageMicros(file, readFileSync(file, 'utf8'));
    } catch {
      return undefined;
    }
  }

  /** Kills what is left in it and removes its folders; throws when processes would not leave. */
  destroy(): Promise<void> {
    this.#destroyed ??= Promise.all(this.dirs.map((dir) => removeCgroup(dir, 'cpu'))).then(() => undefined);
    return this.#destroyed;
  }
}

/**
 * The pod's quota; v1 refuses one above a quota the server's own cgroup has (a container's
 * `--cpus`), which then bounds the pod already.
 */
function setQuota(version: 1 | 2, dir: string, quotaMicros: number): void {
  try {
    if (version === 1) {
      write(dir, 'cpu.cfs_period_us', QUOTA_PERIOD_MICROS);
      write(dir, 'cpu.cfs_quota_us', quotaMicros);
    } else write(dir, 'cpu.max', `${quotaMicros} ${QUOTA_PERIOD_MICROS}`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EINVAL') throw err;
  }
}

/**
 * The weight of all pods together beside the server's own processes, as the kubelet weighs its
 * kubepods cgroup: every CPU of the node's (else the pods together weigh as one busy thread).
 */
const nodeShares = (): number => Math.min(MAX_SHARES, availableParallelism() * 1024);

function write(dir: string, file: string, value: number | string): void {
  writeFileSync(join(dir, file), String(value));
}
