// Projected volumes, as a kubelet fills them: the ServiceAccount admission's kube-api-access-*
// volume (a TokenRequest token bound to the pod, the namespace's kube-root-ca.crt, the namespace),
// so `browserfn operator` and `browserfn api` in the chart's pods use in-cluster configuration with
// exactly their own ServiceAccount's rights. Tokens are requested again at 80% of their lifetime.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Kinds } from '../../cluster/objects.js';
import type { ClusterPort } from '../../cluster/port.js';
import type { PodObject, Volume } from '../../schemas/pod.js';
import { ContainerConfigError, podField } from './container-env.js';

/** Where in-cluster clients look for the token, CA and namespace. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The API server's minimum TokenRequest lifetime; a shorter request is refused. */
const MIN_EXPIRATION_SECONDS = 600;

export function hasServiceAccountToken(pod: PodObject): boolean {
  return (pod.spec.volumes ?? []).some((v) => v.projected?.sources.some((s) => s.serviceAccountToken));
}

/**
 * Writes every file of the projected volume into `folder`; resolves with the milliseconds after
 * which its token should be requested again (undefined without a token).
 */
export async function fillProjectedVolume(cluster: ClusterPort, pod: PodObject, volume: Volume, folder: string, podIP?: string): Promise<number | undefined> {
  let refreshMs: number | undefined;
  const namespace = pod.metadata.namespace ?? 'default';
  for (const source of volume.projected?.sources ?? []) {
    if (source.serviceAccountToken) {
      const credentials = cluster.podCredentials;
      if (!credentials) throw new ContainerConfigError('this cluster backend issues no ServiceAccount tokens');
      const { audience, expirationSeconds, path } = source.serviceAccountToken;
      const requested = Math.max(expirationSeconds ?? 3600, MIN_EXPIRATION_SECONDS);
      const { token, expirationTimestamp } = await credentials.requestToken(namespace, pod.spec.serviceAccountName ?? 'default', {
        audiences: audience ? [audience] : undefined,
        expirationSeconds: requested,
        boundPod: { name: pod.metadata.name, uid: pod.metadata.uid ?? '' },
      });
      write(folder, path, token);
      const lifetimeMs = Math.max(Date.parse(expirationTimestamp) - Date.now(), 0);
      refreshMs = Math.min(refreshMs ?? Infinity, lifetimeMs * 0.8);
    }
    if (source.configMap) {
      const configMap = await cluster.resource(Kinds.ConfigMap).get(namespace, source.configMap.name);
      if (!configMap && !source.configMap.optional) throw new ContainerConfigError(`configmap "${source.configMap.name}" not found in namespace ${namespace}`);
      const data = configMap?.data ?? {};
      const items = source.configMap.items ?? Object.keys(data).map((key) => ({ key, path: key }));
      for (const item of items) if (data[item.key] !== undefined) write(folder, item.path, data[item.key]);
    }
    for (const item of source.downwardAPI?.items ?? []) {
      if (item.fieldRef) write(folder, item.path, podField(pod, item.fieldRef.fieldPath, podIP));
    }
  }
  return refreshMs;
}

/** Replaced whole (rename), so a reader never sees half a token; readable by the pod's user. */
function write(folder: string, path: string, content: string): void {
  const file = join(folder, path);
  if (!file.startsWith(folder + '/')) throw new ContainerConfigError(`projected path ${path} leaves its volume`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, content, { mode: 0o644 });
  renameSync(`${file}.tmp`, file);
}
