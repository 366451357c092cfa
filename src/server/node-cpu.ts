// How the local node agent shares the CPU among pods (docs/pod-memory.md, "CPU"): a cpu cgroup per pod
// when this machine lets the server make them, else every pod process competes with the server's
// own threads one for one, said once and loudly.
import type { Logger } from '../config/logger.js';
import { detectCpuCgroups, type CpuCgroups } from '../runtime/node-agent/cpu-cgroups.js';
import type { MemoryCgroups } from '../runtime/node-agent/memory-cgroups.js';

export interface NodeCpuDecision {
  cgroups?: CpuCgroups;
  /** One line for the operator. */
  description: string;
}

export function decideNodeCpu(memory: MemoryCgroups | undefined, log: Logger): NodeCpuDecision {
  const support = detectCpuCgroups(memory);
  if (!support.available) {
    log.warn({ reason: support.reason }, 'PODS SHARE THE SERVER\'S CPU: no cpu cgroup can be made for them; a pod with many busy processes can take the machine\'s CPUs, and waiting pool members compete with invocations');
    return { description: `pod CPU UNSHARED (${support.reason})` };
  }
  const { cgroups } = support;
  log.info({ parent: cgroups.parents.cpu, version: cgroups.version }, 'each pod gets a cpu cgroup of its own');
  return { cgroups, description: `pod CPU shared: a cgroup v${cgroups.version} per pod at the weight of its requests, waiting pool members in the idle class` };
}
