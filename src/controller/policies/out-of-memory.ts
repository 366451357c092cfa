// A browser pod killed at its memory limit (a container terminated OOMKilled, as the kubelet and the
// local node agent report it): the invocation fails saying so and naming the limit. Not retried:
// the same handler on the same pages needs the same memory again.
import type { PodObject } from '../../schemas/pod.js';
import type { Cause } from '../../schemas/resources.js';
import { describeBytes, memoryBytes } from '../../schemas/quantities.js';

export const OOM_KILLED = 'OOMKilled';

export function outOfMemoryCause(pod: PodObject): Cause | undefined {
  const killed = new Set((pod.status?.containerStatuses ?? []).filter((s) => s.state?.terminated?.reason === OOM_KILLED).map((s) => s.name));
  if (killed.size === 0 && pod.status?.reason !== OOM_KILLED) return undefined;
  const containers = pod.spec.containers.filter((c) => killed.size === 0 || killed.has(c.name));
  const limits = containers.map((c) => c.resources?.limits?.memory);
  const limit = limits.every((l) => l !== undefined) ? ` of ${describeBytes(limits.reduce((sum, l) => sum + memoryBytes(l!), 0))}` : '';
  return {
    code: 'WORKLOAD_ERROR',
    message: `The browser pod ran out of memory: it exceeded its memory limit${limit} and was killed (OOMKilled). Use less memory in the handler and the pages it opens, or have the operator raise the limit (BROWSERFN_POD_MEMORY_MB, or the BrowserPool's resources.limits.memory)`,
  };
}
