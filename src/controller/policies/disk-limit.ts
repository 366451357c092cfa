// A browser pod evicted for what it wrote to disk (one of its folders past its sizeLimit, or its
// containers past their ephemeral-storage limit, as the kubelet and the local node agent report it):
// the invocation fails saying so. Not retried: the same handler on the same pages writes as much
// again. An eviction for the node's own pressure is not the pod's doing, and is retried as any
// lost pod.
import type { PodObject } from '../../schemas/pod.js';
import type { Cause } from '../../schemas/resources.js';

/**
 * The kubelet's messages for a pod past its own limits on disk; not its "The node was low on
 * resource: ephemeral-storage", which is the node's.
 */
const OWN_DISK_LIMIT = /EmptyDir volume .* exceeds the limit|ephemeral local storage usage exceeds the total limit|exceeded its local ephemeral storage limit/;

export function diskLimitCause(pod: PodObject): Cause | undefined {
  const message = pod.status?.message ?? '';
  if (pod.status?.reason !== 'Evicted' || !OWN_DISK_LIMIT.test(message)) return undefined;
  return {
    code: 'WORKLOAD_ERROR',
    message: `The browser pod wrote more to disk than it may and was evicted (${message.trim()}). Write less in the handler and the pages it opens (files, downloads, the browser's cache), or have the operator raise the limit (BROWSERFN_POD_DISK_MB)`,
  };
}
