// Cluster DNS for pods of a node agent, which has neither kube-proxy nor a DNS server: the Service
// names (`<service>.<namespace>.svc`) a pod's containers are given — the chart's
// BROWSERFN_CONTROL_URL for build and browser pods — resolve, through the pod's own /etc/hosts, to
// a ready pod the Service selects. The node agent writes it again when such pods change (a rolled
// Deployment). Ports are not translated (no proxy), so such a Service's port must be its pods' port.
import { readFileSync } from 'node:fs';
import { Kinds, type KubeObject } from '../../cluster/objects.js';
import type { ClusterPort } from '../../cluster/port.js';
import type { PodObject } from '../../schemas/pod.js';

const SERVICE_HOST = /\b([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc(\.cluster\.local)?\b/g;

type ServiceObject = KubeObject & { spec?: { selector?: Record<string, string> } };

export interface ServiceName {
  service: string;
  namespace: string;
}

/** Every Service name in the values, as written (`api.team.svc`, `api.team.svc.cluster.local`). */
export function serviceNames(values: string[]): Map<string, ServiceName> {
  const names = new Map<string, ServiceName>();
  for (const value of values) {
    for (const match of value.matchAll(SERVICE_HOST)) names.set(match[0], { service: match[1], namespace: match[3] });
  }
  return names;
}

/** The address of a ready pod behind each name (names without one are left out). */
export async function resolveServices(cluster: ClusterPort, names: Map<string, ServiceName>): Promise<Map<string, string>> {
  const addresses = new Map<string, string>();
  for (const [name, { service, namespace }] of names) {
    const address = await readyAddress(cluster, namespace, service);
    if (address) addresses.set(name, address);
  }
  return addresses;
}

/** The host's /etc/hosts, then one line per resolved name of `names`. */
export function hostsFileContent(names: Iterable<string>, addresses: Map<string, string>): string {
  const lines = [...names].filter((name) => addresses.has(name)).map((name) => `${addresses.get(name)}\t${name}`);
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
