// The kube backend of the cluster port: a real API server, reached with the credentials of a
// kubeconfig or of the pod's service account (@kubernetes/client-node loads either).
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, ResourceType } from '../objects.js';
import type { ClusterPort, PodCredentials, ResourceClient, TokenRequestSpec } from '../port.js';
import { KubeResourceClient, type WatchRegistry } from './resource-client.js';
import { KubeRestClient } from './rest-client.js';
import type { KubeWatch } from './watch.js';

export interface KubeClusterOptions {
  /** A kubeconfig file; neither this nor inCluster: the default loading rules (KUBECONFIG, ~/.kube/config, in-cluster). */
  kubeconfigPath?: string;
  /** Use the pod's service account (token and CA under /var/run/secrets/kubernetes.io/serviceaccount). */
  inCluster?: boolean;
  /**
   * Each watch request asks the server to end it after a random time in [this, 2·this) seconds and
   * then resumes; default 300 (client-go's choice). Tests lower it to exercise reconnects.
   */
  minWatchTimeoutSeconds?: number;
}

export const DEFAULT_MIN_WATCH_TIMEOUT_SECONDS = 300;

class KubeCluster implements ClusterPort, WatchRegistry {
  readonly backend = 'kube';
  readonly podCredentials: PodCredentials;
  private readonly watches = new Set<KubeWatch<KubeObject>>();

  constructor(
    private readonly rest: KubeRestClient,
    readonly minWatchTimeoutSeconds: number,
  ) {
    this.podCredentials = { apiServer: new URL(rest.serverUrl), requestToken: (namespace, serviceAccount, spec) => this.requestToken(namespace, serviceAccount, spec) };
  }

  private async requestToken(namespace: string, serviceAccount: string, spec: TokenRequestSpec): Promise<{ token: string; expirationTimestamp: string }> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(serviceAccount)}/token`;
    const body = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: spec.audiences ?? [], expirationSeconds: spec.expirationSeconds, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: spec.boundPod.name, uid: spec.boundPod.uid } },
    };
    const { body: answer } = await this.rest.requestJson('POST', path, { body });
    return (answer as { status: { token: string; expirationTimestamp: string } }).status;
  }

  resource<T extends KubeObject = KubeObject>(type: ResourceType): ResourceClient<T> {
    return new KubeResourceClient<T>(this.rest, type, this);
  }

  add(watch: KubeWatch<KubeObject>): void {
    this.watches.add(watch);
  }

  remove(watch: KubeWatch<KubeObject>): void {
    this.watches.delete(watch);
  }

  /** Stops every watch still open and closes pooled connections. */
  async close(): Promise<void> {
    await Promise.all([...this.watches].map((watch) => watch.stop()));
    this.rest.close();
  }
}

export async function openKubeCluster(options: KubeClusterOptions = {}): Promise<ClusterPort> {
  const config = new KubeConfig();
  if (options.inCluster) config.loadFromCluster();
  else if (options.kubeconfigPath) config.loadFromFile(options.kubeconfigPath);
  else config.loadFromDefault();
  const minWatchTimeoutSeconds = options.minWatchTimeoutSeconds ?? DEFAULT_MIN_WATCH_TIMEOUT_SECONDS;
  if (!Number.isInteger(minWatchTimeoutSeconds) || minWatchTimeoutSeconds < 1) {
    throw new Error(`minWatchTimeoutSeconds must be a positive integer, got ${minWatchTimeoutSeconds}`);
  }
  return new KubeCluster(new KubeRestClient(config), minWatchTimeoutSeconds);
}
