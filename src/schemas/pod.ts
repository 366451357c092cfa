// The subset of core/v1 Pod that browserfn writes and reads.
import type { KubeObject } from '../cluster/objects.js';

export interface EnvVar {
  name: string;
  value?: string;
  /** Resolved when the container starts (kubelet, or the local node agent's container-env.ts). */
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface PodSpec {
  nodeName?: string;
  restartPolicy?: 'Never' | 'OnFailure' | 'Always';
  activeDeadlineSeconds?: number;
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  securityContext?: Record<string, unknown>;
  containers: Container[];
  volumes?: { name: string; emptyDir?: Record<string, unknown> }[];
}

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

export interface PodStatus {
  phase?: PodPhase;
  reason?: string;
  message?: string;
  startTime?: string;
  containerStatuses?: { name: string; state?: { terminated?: { exitCode: number; reason?: string }; waiting?: { reason?: string; message?: string } } }[];
  /** PodScheduled says why a pod is not placed (e.g. Unschedulable: not enough memory on any node). */
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

export type PodObject = KubeObject & { spec: PodSpec; status?: PodStatus };

export const isPodTerminal = (pod: PodObject): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
