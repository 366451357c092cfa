// How the local node agent bounds each pod's memory (docs/pod-memory.md): a memory cgroup per pod
// when this machine lets the server make them, else pods run unbounded, said once and loudly.
import type { Logger } from '../config/logger.js';
import type { PodMemorySettings } from '../config/settings.js';
import { detectMemoryCgroups } from '../runtime/node-agent/memory-cgroups.js';
import type { NodeAgentOptions } from '../runtime/node-agent/node-agent.js';

const MiB = 1024 * 1024;

export interface NodeMemoryDecision {
  memory: NonNullable<NodeAgentOptions['memory']>;
  /** One line for the operator. */
  description: string;
}

export function decideNodeMemory(settings: PodMemorySettings, log: Logger): NodeMemoryDecision {
  const defaults = { containerLimitBytes: settings.limitMiB * MiB, shmBytes: settings.shmMiB * MiB };
  const support = detectMemoryCgroups();
  if (!support.available) {
    log.warn({ reason: support.reason }, 'PODS RUN WITHOUT A MEMORY LIMIT: no memory cgroup can be made for them; one pod can take all of the machine\'s memory');
    return { memory: { defaults }, description: `pod memory UNBOUNDED (${support.reason})` };
  }
  const { cgroups } = support;
  log.info({ parent: cgroups.parent, version: cgroups.version }, 'each pod gets a memory cgroup of its own');
  return { memory: { cgroups, defaults }, description: `pod memory bounded: a cgroup v${cgroups.version} per pod, browser pods ${settings.limitMiB} MiB (/dev/shm ${settings.shmMiB} MiB) unless their spec says otherwise` };
}
