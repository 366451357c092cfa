// A pod's folders on disk as the node agent bounds them, read from its spec like a kubelet: an
// emptyDir on disk with a sizeLimit is a folder that may hold that much, and a pod whose folder
// holds more is evicted, with the status the kubelet gives it.
import type { PodObject, PodStatus } from '../../schemas/pod.js';
import { memoryBytes } from '../../schemas/quantities.js';
import type { VolumeFolder } from './local-paths.js';

export interface LimitedFolder {
  /** The volume's name in the pod. */
  name: string;
  folder: string;
  /** Where the pod's containers see it. */
  mountPath: string;
  /** The volume's sizeLimit as the spec spells it (a quantity), for the eviction's message. */
  sizeLimit: string;
  limitBytes: number;
}

export const EVICTED_REASON = 'Evicted';
/** What a process killed with SIGKILL exits with, as a container runtime reports it. */
const KILLED_EXIT_CODE = 137;

/** The pod's folders on disk (not memory-backed) that have a sizeLimit. */
export function limitedFolders(pod: PodObject, volumes: VolumeFolder[]): LimitedFolder[] {
  const limited = new Map<string, LimitedFolder>();
  for (const { name, folder, mountPath } of volumes) {
    const sizeLimit = pod.spec.volumes?.find((v) => v.name === name)?.emptyDir?.sizeLimit;
    const onDisk = pod.spec.volumes?.find((v) => v.name === name)?.emptyDir?.medium !== 'Memory';
    if (name && sizeLimit && onDisk && !limited.has(name)) limited.set(name, { name, folder, mountPath, sizeLimit, limitBytes: memoryBytes(sizeLimit) });
  }
  return [...limited.values()];
}

/** Failed and evicted, in the kubelet's words for an emptyDir past its sizeLimit. */
export function evictedStatus(pod: PodObject, volume: LimitedFolder): PodStatus {
  return {
    phase: 'Failed',
    reason: EVICTED_REASON,
    message: `Usage of EmptyDir volume "${volume.name}" exceeds the limit "${volume.sizeLimit}". `,
    containerStatuses: pod.spec.containers.map((c) => ({ name: c.name, state: { terminated: { exitCode: KILLED_EXIT_CODE, reason: 'Error' } } })),
  };
}
