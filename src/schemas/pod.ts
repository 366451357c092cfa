// The subset of core/v1 Pod that browserfn writes and reads.
import type { KubeObject } from '../cluster/objects.js';

export interface EnvVar {
  name: string;
  value?: string;
  /** Resolved when the container starts (kubelet, or the local node agent's container-env.ts). */
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    /** metadata.name, metadata.namespace, spec.serviceAccountName or status.podIP (what the chart's pods use). */
    fieldRef?: { fieldPath: string };
  };
}

/** A volume the API server's ServiceAccount admission adds (kube-api-access-*): token, CA and namespace. */
export interface ProjectedSource {
  serviceAccountToken?: { path: string; audience?: string; expirationSeconds?: number };
  configMap?: { name: string; items?: { key: string; path: string }[]; optional?: boolean };
  downwardAPI?: { items: { path: string; fieldRef?: { fieldPath: string } }[] };
}

export interface Volume {
  name: string;
  /** medium Memory: a tmpfs (a sandboxed pod's own; counted against its memory), at most sizeLimit. */
  emptyDir?: { medium?: string; sizeLimit?: string };
  projected?: { sources: ProjectedSource[]; defaultMode?: number };
}

export interface Probe {
  httpGet?: { path?: string; port: number | string };
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string; optional?: boolean } }[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface PodSpec {
  nodeName?: string;
  restartPolicy?: 'Never' | 'OnFailure' | 'Always';
  activeDeadlineSeconds?: number;
  automountServiceAccountToken?: boolean;
  serviceAccountName?: string;
  enableServiceLinks?: boolean;
  securityContext?: Record<string, unknown>;
  containers: Container[];
  volumes?: Volume[];
}

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

export interface PodStatus {
  phase?: PodPhase;
  reason?: string;
  message?: string;
  startTime?: string;
  /** The pod's own address (a loopback address of its own on a node agent sharing the host's network). */
  podIP?: string;
  podIPs?: { ip: string }[];
  /** Ready, and PodScheduled, which says why a pod is not placed (e.g. Unschedulable: not enough memory on any node). */
  conditions?: { type: string; status: 'True' | 'False'; lastTransitionTime?: string; reason?: string; message?: string }[];
  containerStatuses?: { name: string; state?: { terminated?: { exitCode: number; reason?: string }; waiting?: { reason?: string; message?: string } } }[];
}

export type PodObject = KubeObject & { spec: PodSpec; status?: PodStatus };

export const isPodTerminal = (pod: PodObject): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** The container of a browser or build pod that runs its agent (beside it, maybe, a Chromium sidecar). */
export const AGENT_CONTAINER = 'agent';

/** Whether the pod's agent has exited: the pod itself may run on, with a Chromium sidecar. */
export const hasAgentExited = (pod: PodObject): boolean =>
  isPodTerminal(pod) || pod.status?.containerStatuses?.some((c) => c.name === AGENT_CONTAINER && c.state?.terminated) === true;
