// How busy this machine's CPUs were over the last second, from /proc/stat. With `serve`, the warm
// pools make members ahead of demand only while the node has CPU to spare (docs/pools.md): a
// browser start takes a core for about a second, and on a saturated node it would take it from the
// invocations running there. /proc/stat counts the whole machine, not a container's CPU quota.
import { readFileSync } from 'node:fs';

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

export const CPU_SAMPLE_MS = 1000;

/** Samples /proc/stat every second; `busyFraction()` is the last second's. */
export class CpuUse {
  #timer: NodeJS.Timeout | undefined;
  #last: CpuTimes | undefined;
  #fraction: number | undefined;

  constructor(private readonly readStat: () => string = () => readFileSync('/proc/stat', 'utf8')) {}

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

  /** Takes a reading and keeps the busy share since the one before. */
  sample(): void {
    const now = this.#read();
    if (!now) return;
    if (this.#last) this.#fraction = busyFractionBetween(this.#last, now) ?? this.#fraction;
    this.#last = now;
  }

  /** The busy share of the last sampled interval; undefined before the first one. */
  busyFraction(): number | undefined {
    return this.#fraction;
  }

  #read(): CpuTimes | undefined {
    try {
      return parseCpuTimes(this.readStat());
    } catch {
      return undefined;
    }
  }
}
