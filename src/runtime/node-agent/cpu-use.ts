// How busy the server's CPUs were over the last second: the CPUs it may run on (all of the
// machine's, or a cpuset's, e.g. `docker run --cpuset-cpus`), from /proc/stat, or the CPU quota of
// the cgroup it runs in (a container's `--cpus`; cgroup v2 `cpu.max` or v1 `cpu.cfs_quota_us`),
// whichever is busier. With `serve`, the warm pools make members ahead of demand only while the
// node has CPU to spare (docs/pools.md): a browser start takes a core for about a second, and on a
// saturated node it would take it from the invocations running there. CPU time that waiting pool
// members used is not counted as busy: they run in the idle class (cpu-cgroups.ts), so that time
// is only what nothing else wanted, and a project whose waiting members spin does not keep every
// other project's pools from refilling.
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type CgroupDir, isOnV1, isWithin, parseMountinfo, parseProcCgroup, underMount, v1CgroupDir, v2CgroupDir } from './cgroup-paths.js';

export interface CpuTimes {
  /** Clock ticks spent on anything but idling, over the CPUs counted since boot. */
  busy: number;
  /** All clock ticks over the CPUs counted since boot. */
  total: number;
}

/**
 * The times of /proc/stat: its first line (every CPU of the machine), or the sum of the lines of
 * `cpus` (`cpu0`, `cpu1`...) when given. Undefined when it does not have that shape, or has none of them.
 */
export function parseCpuTimes(procStat: string, cpus?: ReadonlySet<number>): CpuTimes | undefined {
  const lines = procStat.split('\n');
  if (!cpus) return cpuLineTimes(lines[0], 'cpu');
  let sum: CpuTimes | undefined;
  for (const line of lines) {
    const cpu = /^cpu(\d+) /.exec(line)?.[1];
    if (cpu === undefined || !cpus.has(Number(cpu))) continue;
    const times = cpuLineTimes(line, `cpu${cpu}`);
    if (!times) return undefined;
    sum = { busy: (sum?.busy ?? 0) + times.busy, total: (sum?.total ?? 0) + times.total };
  }
  return sum;
}

function cpuLineTimes(line: string, name: string): CpuTimes | undefined {
  const fields = line.trim().split(/\s+/);
  if (fields[0] !== name || fields.length < 5) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is within user already)
  const ticks = fields.slice(1, 9).map(Number);
  if (ticks.some((n) => !Number.isFinite(n) || n < 0)) return undefined;
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = ticks;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/** The CPUs of a kernel CPU list (`0-3,8,10-11`, as in `Cpus_allowed_list`); undefined when it is not one. */
export function parseCpuList(list: string): Set<number> | undefined {
  const cpus = new Set<number>();
  for (const part of list.trim().split(',')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!range) return undefined;
    const first = Number(range[1]);
    const last = Number(range[2] ?? range[1]);
    if (last < first) return undefined;
    for (let cpu = first; cpu <= last; cpu += 1) cpus.add(cpu);
  }
  return cpus;
}

/** The CPUs this process may run on (its cpuset and affinity), from /proc/self/status; undefined when it does not say. */
export function allowedCpus(procSelfStatus: string): Set<number> | undefined {
  const list = /^Cpus_allowed_list:\s*(\S+)\s*$/m.exec(procSelfStatus)?.[1];
  return list === undefined ? undefined : parseCpuList(list);
}

/** The share (0 to 1) of the CPUs' time between two readings that was busy; undefined when no time passed. */
export function busyFractionBetween(earlier: CpuTimes, later: CpuTimes): number | undefined {
  const total = later.total - earlier.total;
  if (total <= 0) return undefined;
  return Math.min(1, Math.max(0, (later.busy - earlier.busy) / total));
}

/** A CPU quota over the server's processes: how many CPUs it allows, and where their CPU time is counted. */
export interface CpuQuota {
  cpus: number;
  /** The file that counts the CPU time of every process below the quota: v2 `cpu.stat`, v1 `cpuacct.usage`. */
  usageFile: string;
}

/**
 * The tightest `cpu.max` (cgroup v2) on the way from `ownDir` up: a container's quota may sit on its
 * own cgroup or on a parent, and a cgroup below one the cpu controller is not passed down to has no
 * `cpu.max` of its own. Undefined when none limits it.
 */
export function cpuQuotaOf(ownDir: string, read: (path: string) => string): CpuQuota | undefined {
  let tightest: CpuQuota | undefined;
  for (let dir = ownDir; ; dir = dirname(dir)) {
    const [quota, period] = readOrEmpty(read, join(dir, 'cpu.max')).trim().split(/\s+/);
    const cpus = Number(quota) / Number(period);
    if (quota && quota !== 'max' && Number.isFinite(cpus) && cpus > 0 && (!tightest || cpus < tightest.cpus)) tightest = { cpus, usageFile: join(dir, 'cpu.stat') };
    if (dirname(dir) === dir) return tightest;
  }
}

/**
 * The tightest `cpu.cfs_quota_us` (cgroup v1; -1 is none) from the server's cgroup in the cpu
 * hierarchy up to its mount, with `cpuacct.usage` of the same cgroup: in the same folder where
 * cpu and cpuacct share a hierarchy (as Docker and the kubelet mount them), else the cgroup of the
 * same path in cpuacct's, if the server is in it there too. Undefined when none limits it, or its
 * CPU time is not counted anywhere.
 */
export function cfsQuotaOf(cpu: CgroupDir, cpuacct: CgroupDir | undefined, read: (path: string) => string): CpuQuota | undefined {
  let tightest: { cpus: number; path: string } | undefined;
  for (let path = cpu.path; ; path = dirname(path)) {
    const dir = underMount(cpu.mount, path);
    const quota = Number(readOrEmpty(read, join(dir, 'cpu.cfs_quota_us')).trim() || -1);
    const period = Number(readOrEmpty(read, join(dir, 'cpu.cfs_period_us')).trim());
    const cpus = quota / period;
    if (quota > 0 && Number.isFinite(cpus) && cpus > 0 && (!tightest || cpus < tightest.cpus)) tightest = { cpus, path };
    if (dirname(path) === path || !isWithin(dirname(path), cpu.mount.root)) break;
  }
  if (!tightest) return undefined;
  const counting = cpu.mount.superOptions.includes('cpuacct') ? cpu : cpuacct;
  // That cgroup counts the server only if the server is in it (or below it) in cpuacct's hierarchy too.
  if (!counting || !isWithin(counting.path, tightest.path) || !isWithin(tightest.path, counting.mount.root)) return undefined;
  return { cpus: tightest.cpus, usageFile: join(underMount(counting.mount, tightest.path), 'cpuacct.usage') };
}

function readOrEmpty(read: (path: string) => string, path: string): string {
  try {
    return read(path);
  } catch {
    return '';
  }
}

/** The CPU time (µs) that a cgroup's usage file (v2 `cpu.stat`, v1 `cpuacct.usage` in ns) says its processes used. */
export function cgroupUsageMicros(usageFile: string, text: string): number | undefined {
  if (basename(usageFile) === 'cpuacct.usage') return /^\d+$/.test(text.trim()) ? Number(text.trim()) / 1000 : undefined;
  const match = /^usage_usec (\d+)$/m.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** The CPU quota of this process's cgroup (v1 or v2); undefined where none limits it. */
export function ownCpuQuota(read: (path: string) => string = (path) => readFileSync(path, 'utf8')): CpuQuota | undefined {
  try {
    const memberships = parseProcCgroup(read('/proc/self/cgroup'));
    const mounts = parseMountinfo(read('/proc/self/mountinfo'));
    if (isOnV1(memberships, 'cpu')) {
      const cpu = v1CgroupDir(memberships, mounts, 'cpu');
      return cpu ? cfsQuotaOf(cpu, v1CgroupDir(memberships, mounts, 'cpuacct'), read) : undefined;
    }
    const v2 = v2CgroupDir(memberships, mounts);
    return v2 ? cpuQuotaOf(v2.dir, read) : undefined;
  } catch {
    return undefined;
  }
}

export const CPU_SAMPLE_MS = 1000;

/** What /proc/stat counts a CPU's time in (USER_HZ, 100 on every Linux architecture that runs Node). */
const MICROS_PER_TICK = 10_000;

interface Reading {
  cpus: CpuTimes;
  /** CPU time the quota's cgroup used (µs), and when it was read (ms). */
  quota?: { usedMicros: number; atMs: number };
  /** CPU time (µs) counted as idle however busy it was, since some start. */
  idleMicros: number;
}

export interface CpuUseSources {
  /** Reads a file (/proc/stat, /proc/self/status, the quota's usage file). */
  read: (path: string) => string;
  /** The CPUs the server may run on; undefined counts all of the machine's. */
  cpus?: ReadonlySet<number>;
  quota?: CpuQuota;
  nowMs: () => number;
  /** CPU time (µs, counted from any start) that is only what nothing else wanted: the waiting pool members'. */
  idleClassMicros?: () => number;
}

/** Samples the CPU use of the server's CPUs and quota every second; `busyFraction()` is the last second's. */
export class CpuUse {
  #timer: NodeJS.Timeout | undefined;
  #last: Reading | undefined;
  #fraction: number | undefined;
  readonly #sources: CpuUseSources;

  constructor(sources: Partial<CpuUseSources> = {}) {
    const read = sources.read ?? ((path: string) => readFileSync(path, 'utf8'));
    this.#sources = {
      read,
      nowMs: () => performance.now(),
      ...sources,
      cpus: 'cpus' in sources ? sources.cpus : ownAllowedCpus(read),
      quota: 'quota' in sources ? sources.quota : ownCpuQuota(read),
    };
  }

  /** False where there is no /proc/stat to read (not Linux): nothing is sampled then. */
  start(): boolean {
    this.#last = this.#read();
    if (!this.#last) return false;
    this.#timer = setInterval(() => this.sample(), CPU_SAMPLE_MS);
    this.#timer.unref();
    return true;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Takes a reading and keeps the busy share since the one before: the CPUs' or the quota's, whichever is higher. */
  sample(): void {
    const now = this.#read();
    if (!now) return;
    const last = this.#last;
    this.#last = now;
    if (!last) return;
    const idleMicros = now.idleMicros - last.idleMicros;
    const cpus = busyFractionBetween(last.cpus, { ...now.cpus, busy: now.cpus.busy - idleMicros / MICROS_PER_TICK });
    const quota = this.#sources.quota && last.quota && now.quota ? quotaBusyFraction(this.#sources.quota.cpus, last.quota, { ...now.quota, usedMicros: now.quota.usedMicros - idleMicros }) : undefined;
    if (cpus === undefined && quota === undefined) return;
    this.#fraction = Math.max(cpus ?? 0, quota ?? 0);
  }

  /** The busy share of the last sampled interval; undefined before the first one. */
  busyFraction(): number | undefined {
    return this.#fraction;
  }

  #read(): Reading | undefined {
    let cpus: CpuTimes | undefined;
    try {
      cpus = parseCpuTimes(this.#sources.read('/proc/stat'), this.#sources.cpus);
    } catch {
      return undefined;
    }
    if (!cpus) return undefined;
    const { quota, read, nowMs, idleClassMicros } = this.#sources;
    const idleMicros = idleClassMicros?.() ?? 0;
    if (!quota) return { cpus, idleMicros };
    try {
      const usedMicros = cgroupUsageMicros(quota.usageFile, read(quota.usageFile));
      return { cpus, idleMicros, quota: usedMicros === undefined ? undefined : { usedMicros, atMs: nowMs() } };
    } catch {
      return { cpus, idleMicros };
    }
  }
}

function ownAllowedCpus(read: (path: string) => string): Set<number> | undefined {
  try {
    return allowedCpus(read('/proc/self/status'));
  } catch {
    return undefined;
  }
}

/** The share of a quota of `cpus` that the cgroup used between two readings; undefined when no time passed. */
function quotaBusyFraction(cpus: number, earlier: { usedMicros: number; atMs: number }, later: { usedMicros: number; atMs: number }): number | undefined {
  const allowedMicros = (later.atMs - earlier.atMs) * 1000 * cpus;
  if (allowedMicros <= 0) return undefined;
  return Math.min(1, Math.max(0, (later.usedMicros - earlier.usedMicros) / allowedMicros));
}
