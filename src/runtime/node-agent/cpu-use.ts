// How busy the node's CPUs were over the last second: the machine's, from /proc/stat, or the CPU
// quota of the cgroup the server runs in (a container's `--cpus`, cgroup v2), whichever is busier.
// With `serve`, the warm pools make members ahead of demand only while the node has CPU to spare
// (docs/pools.md): a browser start takes a core for about a second, and on a saturated node it
// would take it from the invocations running there.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { memoryCgroupLayout } from './memory-cgroups.js';

export interface CpuTimes {
  /** Clock ticks spent on anything but idling, over all CPUs since boot. */
  busy: number;
  /** All clock ticks over all CPUs since boot. */
  total: number;
}

/** The machine-wide times of /proc/stat's first line; undefined when it does not have that shape. */
export function parseCpuTimes(procStat: string): CpuTimes | undefined {
  const line = procStat.split('\n', 1)[0];
  const fields = line.trim().split(/\s+/);
  if (fields[0] !== 'cpu' || fields.length < 5) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is within user already)
  const ticks = fields.slice(1, 9).map(Number);
  if (ticks.some((n) => !Number.isFinite(n) || n < 0)) return undefined;
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = ticks;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/** The share (0 to 1) of the CPUs' time between two readings that was busy; undefined when no time passed. */
export function busyFractionBetween(earlier: CpuTimes, later: CpuTimes): number | undefined {
  const total = later.total - earlier.total;
  if (total <= 0) return undefined;
  return Math.min(1, Math.max(0, (later.busy - earlier.busy) / total));
}

/** A CPU quota over the server's processes: how many CPUs it allows, and where its usage is counted. */
export interface CpuQuota {
  cpus: number;
  /** The cgroup (v2) folder whose `cpu.max` sets it; its `cpu.stat` counts every process below it. */
  dir: string;
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
    if (quota && quota !== 'max' && Number.isFinite(cpus) && cpus > 0 && (!tightest || cpus < tightest.cpus)) tightest = { cpus, dir };
    if (dirname(dir) === dir) return tightest;
  }
}

function readOrEmpty(read: (path: string) => string, path: string): string {
  try {
    return read(path);
  } catch {
    return '';
  }
}

/** The CPU time (µs) a cgroup's `cpu.stat` says its processes used. */
export function cgroupUsageMicros(cpuStat: string): number | undefined {
  const match = /^usage_usec (\d+)$/m.exec(cpuStat);
  return match ? Number(match[1]) : undefined;
}

/** The CPU quota of this process's cgroup, where cgroup v2 has one; undefined otherwise (v1 hosts included). */
export function ownCpuQuota(read: (path: string) => string = (path) => readFileSync(path, 'utf8')): CpuQuota | undefined {
  try {
    const layout = memoryCgroupLayout(read('/proc/self/cgroup'), read('/proc/self/mountinfo'));
    return typeof layout !== 'string' && layout.version === 2 ? cpuQuotaOf(layout.own, read) : undefined;
  } catch {
    return undefined;
  }
}

export const CPU_SAMPLE_MS = 1000;

interface Reading {
  machine: CpuTimes;
  /** CPU time the quota's cgroup used (µs), and when it was read (ms). */
  quota?: { usedMicros: number; atMs: number };
}

export interface CpuUseSources {
  /** Reads a file (/proc/stat, the quota's `cpu.stat`). */
  read: (path: string) => string;
  quota?: CpuQuota;
  nowMs: () => number;
}

/** Samples the machine's and the quota's CPU use every second; `busyFraction()` is the last second's. */
export class CpuUse {
  #timer: NodeJS.Timeout | undefined;
  #last: Reading | undefined;
  #fraction: number | undefined;
  readonly #sources: CpuUseSources;

  constructor(sources: Partial<CpuUseSources> = {}) {
    const read = sources.read ?? ((path: string) => readFileSync(path, 'utf8'));
    this.#sources = { read, nowMs: () => performance.now(), ...sources, quota: 'quota' in sources ? sources.quota : ownCpuQuota(read) };
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

  /** Takes a reading and keeps the busy share since the one before: the machine's or the quota's, whichever is higher. */
  sample(): void {
    const now = this.#read();
    if (!now) return;
    const last = this.#last;
    this.#last = now;
    if (!last) return;
    const machine = busyFractionBetween(last.machine, now.machine);
    const quota = this.#sources.quota && last.quota && now.quota ? quotaBusyFraction(this.#sources.quota.cpus, last.quota, now.quota) : undefined;
    if (machine === undefined && quota === undefined) return;
    this.#fraction = Math.max(machine ?? 0, quota ?? 0);
  }

  /** The busy share of the last sampled interval; undefined before the first one. */
  busyFraction(): number | undefined {
    return this.#fraction;
  }

  #read(): Reading | undefined {
    let machine: CpuTimes | undefined;
    try {
      machine = parseCpuTimes(this.#sources.read('/proc/stat'));
    } catch {
      return undefined;
    }
    if (!machine) return undefined;
    const { quota, read, nowMs } = this.#sources;
    if (!quota) return { machine };
    try {
      const usedMicros = cgroupUsageMicros(read(join(quota.dir, 'cpu.stat')));
      return { machine, quota: usedMicros === undefined ? undefined : { usedMicros, atMs: nowMs() } };
    } catch {
      return { machine };
    }
  }
}

/** The share of a quota of `cpus` that the cgroup used between two readings; undefined when no time passed. */
function quotaBusyFraction(cpus: number, earlier: { usedMicros: number; atMs: number }, later: { usedMicros: number; atMs: number }): number | undefined {
  const allowedMicros = (later.atMs - earlier.atMs) * 1000 * cpus;
  if (allowedMicros <= 0) return undefined;
  return Math.min(1, Math.max(0, (later.usedMicros - earlier.usedMicros) / allowedMicros));
}
