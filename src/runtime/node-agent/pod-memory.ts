// A pod's memory as the node agent bounds it, read from its spec like a kubelet: the pod's limit is
// the sum of its containers' limits.memory (a container without one counts the node's default), its
// /dev/shm is sized by a memory-backed emptyDir mounted there (else the node's default); and the
// status of a pod that ran out of memory.
import type { PodObject, PodStatus } from '../../schemas/pod.js';
import { describeBytes, memoryBytes } from '../../schemas/quantities.js';

export interface PodMemoryDefaults {
  /** A container without limits.memory counts this much. */
  containerLimitBytes: number;
  /** /dev/shm of a sandboxed pod without a memory-backed volume there. */
  shmBytes: number;
}

export const OOM_REASON = 'OOMKilled';
/** What a process killed with SIGKILL exits with, as a container runtime reports it. */
const OOM_EXIT_CODE = 137;

export function podMemoryLimitBytes(pod: PodObject, defaults: PodMemoryDefaults): number {
  return pod.spec.containers.reduce((sum, c) => sum + (c.resources?.limits?.memory ? memoryBytes(c.resources.limits.memory) : defaults.containerLimitBytes), 0);
}

/** The size of the pod's /dev/shm: its memory-backed volume's sizeLimit, never above the pod's limit. */
export function podShmBytes(pod: PodObject, defaults: PodMemoryDefaults): number {
  const mounted = new Set(pod.spec.containers.flatMap((c) => (c.volumeMounts ?? []).filter((m) => m.mountPath === '/dev/shm').map((m) => m.name)));
  const volume = pod.spec.volumes?.find((v) => mounted.has(v.name) && v.emptyDir?.medium === 'Memory');
  const size = volume?.emptyDir?.sizeLimit ? memoryBytes(volume.emptyDir.sizeLimit) : defaults.shmBytes;
  return Math.min(size, podMemoryLimitBytes(pod, defaults));
}

/** Whether a volume is the pod's /dev/shm tmpfs (made by the sandbox, not a folder). */
export const isShmVolume = (pod: PodObject, name: string): boolean =>
  pod.spec.volumes?.some((v) => v.name === name && v.emptyDir?.medium === 'Memory') === true &&
  pod.spec.containers.some((c) => c.volumeMounts?.some((m) => m.name === name && m.mountPath === '/dev/shm'));

/** Failed with every container terminated OOMKilled, as the kubelet reports a container killed at its limit. */
export function outOfMemoryStatus(pod: PodObject, limitBytes: number): PodStatus {
  return {
    phase: 'Failed',
    reason: OOM_REASON,
    message: `the pod exceeded its memory limit of ${describeBytes(limitBytes)} and was killed`,
    containerStatuses: pod.spec.containers.map((c) => ({ name: c.name, state: { terminated: { exitCode: OOM_EXIT_CODE, reason: OOM_REASON } } })),
  };
}
