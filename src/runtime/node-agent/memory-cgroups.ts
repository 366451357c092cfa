// Each pod's memory bounded as a kubelet bounds it: a memory cgroup of its own (v1 or v2) with the
// pod's limit and no swap, entered by the pod's first process before it execs (so Chromium, the
// agent and user code are all inside), and removed when the pod ends. Out of memory, the pod ends as
// a whole, as Kubernetes does with memory.oom.group: v2 has the kernel kill the group; v1 has no
// group kill, so the OOM killer is off for the pod, its processes wait at the limit, and the node
// agent (oom-watch.ts) kills them all.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { enableController, killAllIn, newAgentFolder, removeCgroup, removeStaleAgentFolders } from './cgroup-folders.js';
import { controllerCgroup, parseMountinfo, parseProcCgroup, type ControllerCgroup } from './cgroup-paths.js';

export type MemoryCgroupSupport = { available: true; cgroups: MemoryCgroups } | { available: false; reason: string };

export type MemoryCgroupLayout = ControllerCgroup;

/** Finds the server's memory cgroup and makes the folder its pods' cgroups go in; says why not when it cannot. */
export function detectMemoryCgroups(): MemoryCgroupSupport {
  try {
    const layout = memoryCgroupLayout(readFileSync('/proc/self/cgroup', 'utf8'), readFileSync('/proc/self/mountinfo', 'utf8'));
    if (typeof layout === 'string') return { available: false, reason: layout };
    if (layout.version === 2 && !readFileSync(join(layout.own, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('memory')) {
      return { available: false, reason: `cgroup v2 without the memory controller delegated to ${layout.own}` };
    }
    removeStaleAgentFolders(layout.own);
    if (layout.version === 2) enableController(layout.own, 'memory');
    const parent = newAgentFolder(layout.own);
    const cgroups = new MemoryCgroups(layout.version, parent);
    if (layout.version === 2) enableController(parent, 'memory');
    try {
      // A trial pod cgroup: the limit files must be writable, not merely the folder.
      void cgroups.create('trial', 64 * 1024 * 1024).destroy();
    } catch (err) {
      cgroups.close();
      throw err;
    }
    return { available: true, cgroups };
  } catch (err) {
    return { available: false, reason: `the memory cgroup cannot be delegated to pods: ${(err as Error).message}` };
  }
}

/** The memory cgroups of one node agent's pods. */
export class MemoryCgroups {
  constructor(
    readonly version: 1 | 2,
    /** Folder of this agent's pod cgroups. */
    readonly parent: string,
  ) {}

  /** A cgroup for one pod: `limitBytes` of memory and swap together, the pod ending as a whole when out of memory. */
  create(name: string, limitBytes: number): PodMemoryCgroup {
    const dir = join(this.parent, name);
    mkdirSync(dir);
    const group = new PodMemoryCgroup(this.version, dir, limitBytes);
    try {
      if (this.version === 1) {
        write(dir, 'memory.limit_in_bytes', limitBytes);
        // Memory plus swap at the same limit: no swap (absent when the kernel does not account swap).
        if (existsSync(join(dir, 'memory.memsw.limit_in_bytes'))) write(dir, 'memory.memsw.limit_in_bytes', limitBytes);
        else write(dir, 'memory.swappiness', 0);
        write(dir, 'memory.oom_control', 1);
      } else {
        write(dir, 'memory.max', limitBytes);
        if (existsSync(join(dir, 'memory.swap.max'))) write(dir, 'memory.swap.max', 0);
        write(dir, 'memory.oom.group', 1);
      }
    } catch (err) {
      rmdirSync(dir);
      throw err;
    }
    return group;
  }

  /** Removes the agent's folder once its pods' cgroups are gone. */
  close(): void {
    try {
      rmdirSync(this.parent);
    } catch {
      // A pod cgroup left behind was reported when its pod ended.
    }
  }
}

export class PodMemoryCgroup {
  #destroyed: Promise<void> | undefined;

  constructor(
    private readonly version: 1 | 2,
    readonly dir: string,
    readonly limitBytes: number,
  ) {}

  /** The file a process writes its pid into to enter the cgroup (cgroup-entry.ts). */
  get procsFile(): string {
    return join(this.dir, 'cgroup.procs');
  }

  /** Whether the pod ran out of memory: v1, its processes wait at the limit (or one was killed); v2, the kernel killed it. */
  outOfMemory(): boolean {
    try {
      const text = readFileSync(join(this.dir, this.version === 1 ? 'memory.oom_control' : 'memory.events'), 'utf8');
      const value = (key: string) => Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      return value('oom_kill') > 0 || (this.version === 1 ? value('under_oom') > 0 : value('oom_group_kill') > 0);
    } catch {
      return false;
    }
  }

  /** SIGKILL to every process in it (those waiting at the limit wake for it). */
  killAll(): void {
    killAllIn(this.dir);
  }

  /** Kills what is left in it and removes it; throws when processes would not leave it. */
  destroy(): Promise<void> {
    this.#destroyed ??= removeCgroup(this.dir, 'memory');
    return this.#destroyed;
  }
}

/** The memory hierarchy and the server's place in it, from /proc/self/cgroup and /proc/self/mountinfo, or why there is none. */
export const memoryCgroupLayout = (procCgroup: string, mountinfo: string): MemoryCgroupLayout | string =>
  controllerCgroup(parseProcCgroup(procCgroup), parseMountinfo(mountinfo), 'memory');

function write(dir: string, file: string, value: number): void {
  writeFileSync(join(dir, file), String(value));
}
