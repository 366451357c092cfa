// A container's environment as a kubelet builds it: `envFrom` ConfigMaps first, then literal
// values, `valueFrom.fieldRef` (the pod's own fields) and `valueFrom.secretKeyRef` read from the
// pod's namespace. The controller creates a pod's token Secret right after the Pod,
// so a missing Secret is waited for (bounded, like the kubelet's retries); if it never appears the
// pod cannot start and says which Secret is missing.
import { Kinds } from '../../cluster/objects.js';
import type { ClusterPort } from '../../cluster/port.js';
import type { Container, PodObject } from '../../schemas/pod.js';

export interface SecretWait {
  /** How long a referenced Secret (or key) may be missing before the pod fails. */
  timeoutMs: number;
  /** Stop waiting (the pod was deleted meanwhile). */
  cancelled?: () => boolean;
}

export const DEFAULT_SECRET_WAIT: SecretWait = { timeoutMs: 60_000 };

/** The pod cannot start: its reason and message become the pod's status (as the kubelet's CreateContainerConfigError). */
export class ContainerConfigError extends Error {
  readonly reason = 'CreateContainerConfigError';
}

/** name → value for every env entry of the container, in order (later entries win, as in Kubernetes). */
export async function resolveContainerEnv(cluster: ClusterPort, pod: PodObject, container: Container, wait: SecretWait = DEFAULT_SECRET_WAIT, podIP?: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const ref = source.configMapRef;
    if (!ref) continue;
    const configMap = await cluster.resource(Kinds.ConfigMap).get(pod.metadata.namespace, ref.name);
    if (!configMap && !ref.optional) throw new ContainerConfigError(`configmap "${ref.name}" not found in namespace ${pod.metadata.namespace}`);
    Object.assign(env, configMap?.data);
  }
  for (const entry of container.env ?? []) {
    const ref = entry.valueFrom?.secretKeyRef;
    const field = entry.valueFrom?.fieldRef;
    if (field) env[entry.name] = podField(pod, field.fieldPath, podIP);
    else if (ref) {
      const value = await secretValue(cluster, pod.metadata.namespace!, ref, wait);
      if (value !== undefined) env[entry.name] = value;
    } else if (entry.value !== undefined) env[entry.name] = entry.value;
  }
  return env;
}

/** A field of the pod, as the downward API gives it. */
export function podField(pod: PodObject, fieldPath: string, podIP?: string): string {
  const fields: Record<string, string | undefined> = {
    'metadata.name': pod.metadata.name,
    'metadata.namespace': pod.metadata.namespace,
    'metadata.uid': pod.metadata.uid,
    'spec.nodeName': pod.spec.nodeName,
    'spec.serviceAccountName': pod.spec.serviceAccountName,
    'status.podIP': podIP,
  };
  const value = fields[fieldPath];
  if (value === undefined) throw new ContainerConfigError(`the node agent does not provide field ${fieldPath}`);
  return value;
}

/** The value, waiting for it; an `optional` reference that is missing gives undefined at once (as in Kubernetes). */
async function secretValue(cluster: ClusterPort, namespace: string, ref: { name: string; key: string; optional?: boolean }, wait: SecretWait): Promise<string | undefined> {
  const secrets = cluster.resource(Kinds.Secret);
  const deadline = Date.now() + wait.timeoutMs;
  let delayMs = 50;
  for (;;) {
    const secret = await secrets.get(namespace, ref.name);
    const data = secret && !secret.metadata.deletionTimestamp ? secret.data?.[ref.key] : undefined;
    if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
    if (ref.optional) return undefined;
    if (wait.cancelled?.()) throw new ContainerConfigError('the pod was deleted while it waited for its Secret');
    if (Date.now() + delayMs > deadline) {
      const missing = secret ? `key "${ref.key}" of secret "${ref.name}"` : `secret "${ref.name}"`;
      throw new ContainerConfigError(`${missing} not found in namespace ${namespace} after ${Math.round(wait.timeoutMs / 1000)} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    delayMs = Math.min(delayMs * 2, 1000);
  }
}
