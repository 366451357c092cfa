// Each pod's memory bounded as a kubelet bounds it: a memory cgroup of its own (v1 or v2) with the
// pod's limit and no swap, entered by the pod's first process before it execs (so Chromium, the
// agent and user code are all inside), and removed when the pod ends. Out of memory, the pod ends as
// a whole, as Kubernetes does with memory.oom.group: v2 has the kernel kill the group; v1 has no
// group kill, so the OOM killer is off for the pod, its processes wait at the limit, and the node
// agent (oom-watch.ts) kills them all.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isOnV1, parseMountinfo, parseProcCgroup, v1CgroupDir, v2CgroupDir } from './cgroup-paths.js';

export type MemoryCgroupSupport = { available: true; cgroups: MemoryCgroups } | { available: false; reason: string };

export interface MemoryCgroupLayout {
  version: 1 | 2;
  /** The server's own memory cgroup folder. */
  own: string;
}

const PARENT_PREFIX = 'browserfn-';
/** How long a pod's processes get to leave its cgroup after SIGKILL before it is left behind, said loudly. */
const DESTROY_LIMIT_MS = 10_000;

/** Finds the server's memory cgroup and makes the folder its pods' cgroups go in; says why not when it cannot. */
export function detectMemoryCgroups(): MemoryCgroupSupport {
  try {
    const layout = memoryCgroupLayout(readFileSync('/proc/self/cgroup', 'utf8'), readFileSync('/proc/self/mountinfo', 'utf8'));
    if (typeof layout === 'string') return { available: false, reason: layout };
    if (layout.version === 2 && !readFileSync(join(layout.own, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('memory')) {
      return { available: false, reason: `cgroup v2 without the memory controller delegated to ${layout.own}` };
    }
    removeStaleParents(layout);
    if (layout.version === 2) enableMemoryController(layout.own);
    // Several node agents may run in one process (tests): each has a folder of its own.
    const parent = join(layout.own, `${PARENT_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
    mkdirSync(parent);
    const cgroups = new MemoryCgroups(layout.version, parent);
    if (layout.version === 2) enableMemoryController(parent);
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

  /**
   * `command` made to enter this cgroup before it execs (a shell writes itself into it), then to run
   * as `user`: the switch comes after, since joining a cgroup takes the server's rights.
   */
  enter(command: string[], user?: { uid: number; gid: number }): string[] {
    const asUser = user ? ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--'] : [];
    return ['/bin/sh', '-c', 'echo 0 > "$0" && exec "$@"', join(this.dir, 'cgroup.procs'), ...asUser, ...command];
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

  /** Process IDs in the cgroup. */
  pids(): number[] {
    try {
      return readFileSync(join(this.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /** SIGKILL to every process in it (those waiting at the limit wake for it). */
  killAll(): void {
    for (const pid of this.pids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  }

  /** Kills what is left in it and removes it; throws when processes would not leave it. */
  destroy(): Promise<void> {
    this.#destroyed ??= this.#destroy();
    return this.#destroyed;
  }

  async #destroy(): Promise<void> {
    const started = Date.now();
    for (;;) {
      this.killAll();
      try {
        rmdirSync(this.dir);
        return;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return;
        if (code !== 'EBUSY' || Date.now() - started > DESTROY_LIMIT_MS) throw new Error(`could not remove the pod's memory cgroup ${this.dir}: ${(err as Error).message} (processes left: ${this.pids().join(', ') || 'none'})`);
      }
      await sleep(20);
    }
  }
}

/**
 * The memory hierarchy (v1 preferred on hybrid machines) and the server's place in it, from
 * /proc/self/cgroup and /proc/self/mountinfo, or why there is none.
 */
export function memoryCgroupLayout(procCgroup: string, mountinfo: string): MemoryCgroupLayout | string {
  const memberships = parseProcCgroup(procCgroup);
  const mounts = parseMountinfo(mountinfo);
  if (isOnV1(memberships, 'memory')) {
    const v1 = v1CgroupDir(memberships, mounts, 'memory');
    return v1 ? { version: 1, own: v1.dir } : 'the memory cgroup (v1) is not mounted';
  }
  const v2 = v2CgroupDir(memberships, mounts);
  return v2 ? { version: 2, own: v2.dir } : 'no memory cgroup: neither cgroup v1 with the memory controller nor cgroup v2 is mounted';
}

/**
 * v2 gives children a controller only through the parent's subtree_control, which a cgroup that
 * holds processes itself cannot have (the server's own, unless it is the root): then it says so.
 */
function enableMemoryController(dir: string): void {
  try {
    writeFileSync(join(dir, 'cgroup.subtree_control'), '+memory');
  } catch (err) {
    throw new Error(`cannot enable the memory controller for ${dir}'s children (${(err as Error).message}); run the server in a cgroup of its own whose parent delegates memory`);
  }
}

/** Folders of node agents whose process is gone (it was killed): their pods died with them. */
function removeStaleParents({ own, version }: MemoryCgroupLayout): void {
  for (const name of readdirSync(own)) {
    const pid = new RegExp(`^${PARENT_PREFIX}(\\d+)-`).exec(name)?.[1];
    if (!pid || isAlive(Number(pid))) continue;
    const parent = join(own, name);
    for (const child of readdirSync(parent, { withFileTypes: true })) {
      if (!child.isDirectory()) continue;
      void new PodMemoryCgroup(version, join(parent, child.name), 0).destroy().catch(() => undefined);
    }
    try {
      rmdirSync(parent);
    } catch {
      // Its pods' cgroups are still emptying; the next start tries again.
    }
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

function write(dir: string, file: string, value: number): void {
  writeFileSync(join(dir, file), String(value));
}
