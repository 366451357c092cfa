// A pod's CPU as the node agent shares it, read from its spec like a kubelet: the pod's weight is the
// sum of its containers' requests.cpu (a container with only a limit requests its limit), and its
// quota the sum of their limits.cpu when every container has one. A pool member that waits for an
// invocation is the exception: it takes only CPU nothing else wants (cpu-cgroups.ts).
import type { PodObject } from '../../schemas/pod.js';
import { Labels } from '../../schemas/resources.js';
import { cpuMillis } from '../../schemas/quantities.js';

/** cgroup v1 cpu.shares bounds, and what one CPU is worth, as the kubelet counts them. */
export const MIN_SHARES = 2;
export const MAX_SHARES = 262_144;
const SHARES_PER_CPU = 1024;
/** The CFS period a quota is a share of (µs), and the smallest quota the kernel takes. */
export const QUOTA_PERIOD_MICROS = 100_000;
const MIN_QUOTA_MICROS = 1000;

export interface PodCpuShare {
  /** cgroup v1 cpu.shares (v2's cpu.weight is derived from it). */
  shares: number;
  /** CPU time (µs) the pod may use per QUOTA_PERIOD_MICROS; undefined for none. */
  quotaMicros?: number;
}

export function podCpuShare(pod: PodObject): PodCpuShare {
  const containers = pod.spec.containers.map((c) => ({ request: c.resources?.requests?.cpu, limit: c.resources?.limits?.cpu }));
  const requested = containers.reduce((sum, c) => sum + cpuMillis(c.request ?? c.limit ?? '0'), 0);
  const limited = containers.every((c) => c.limit !== undefined) ? containers.reduce((sum, c) => sum + cpuMillis(c.limit!), 0) : undefined;
  return {
    shares: Math.min(MAX_SHARES, Math.max(MIN_SHARES, Math.floor((requested * SHARES_PER_CPU) / 1000))),
    quotaMicros: limited === undefined || limited === 0 ? undefined : Math.max(MIN_QUOTA_MICROS, Math.floor((limited * QUOTA_PERIOD_MICROS) / 1000)),
  };
}

/** cgroup v2 cpu.weight (1 to 10000) for v1 shares, as the kubelet and runc convert them. */
export const sharesToWeight = (shares: number): number => 1 + Math.floor(((shares - MIN_SHARES) * 9999) / (MAX_SHARES - MIN_SHARES));

/** A warm pool member no invocation has claimed yet. */
export const isWaitingMember = (pod: PodObject): boolean => Boolean(pod.metadata.labels?.[Labels.pool]) && !pod.metadata.labels?.[Labels.invocationName];
