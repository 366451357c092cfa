// Cluster DNS for pods of a node agent, which has neither kube-proxy nor a DNS server: the Service
// names (`<service>.<namespace>.svc`) a pod's containers are given — the chart's
// BROWSERFN_CONTROL_URL for build and browser pods — resolve, through the pod's own /etc/hosts, to
// a ready pod the Service selects. Ports are not translated (no proxy), so such a Service's port
// must be its pods' port. The addresses are those when the pod starts.
import { readFileSync } from 'node:fs';
import { Kinds, type KubeObject } from '../../cluster/objects.js';
import type { ClusterPort } from '../../cluster/port.js';
import type { PodObject } from '../../schemas/pod.js';

const SERVICE_HOST = /\b([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc(\.cluster\.local)?\b/g;

type ServiceObject = KubeObject & { spec?: { selector?: Record<string, string> } };

/** The pod's /etc/hosts (the host's, then one line per Service name), or undefined when it names none that resolves. */
export async function serviceHostsFile(cluster: ClusterPort, values: string[], log: (message: string) => void): Promise<string | undefined> {
  const names = new Map<string, { service: string; namespace: string }>();
  for (const value of values) {
    for (const match of value.matchAll(SERVICE_HOST)) names.set(match[0], { service: match[1], namespace: match[3] });
  }
  const lines: string[] = [];
  for (const [name, { service, namespace }] of names) {
    const address = await readyAddress(cluster, namespace, service);
    if (address) lines.push(`${address}\t${name}`);
    else log(`no ready pod behind ${name}`);
  }
  if (lines.length === 0) return undefined;
  return `${readFileSync('/etc/hosts', 'utf8').trimEnd()}\n# Services (browserfn node agent)\n${lines.join('\n')}\n`;
}

async function readyAddress(cluster: ClusterPort, namespace: string, name: string): Promise<string | undefined> {
  const service = await cluster.resource<ServiceObject>(Kinds.Service).get(namespace, name);
  const selector = service?.spec?.selector;
  if (!selector || Object.keys(selector).length === 0) return undefined;
  const labelSelector = Object.entries(selector).map(([key, value]) => `${key}=${value}`).join(',');
  const pods = await cluster.resource<PodObject>(Kinds.Pod).list(namespace, { labelSelector });
  const ready = pods.items.filter((p) => !p.metadata.deletionTimestamp && p.status?.podIP && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
  return ready[0]?.status?.podIP;
}
