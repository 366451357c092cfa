// The /etc/hosts of each sandboxed pod that names Services (service-hosts.ts): written when the pod
// starts, and written again in place (the sandbox binds that very file) when pods behind those
// Services change, as a rolled Deployment's do.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import { objectKey } from '../../controller/runtime/informer.js';
import type { PodObject } from '../../schemas/pod.js';
import { hostsFileContent, resolveServices, serviceNames, type ServiceName } from './service-hosts.js';

/** How long Service changes are gathered before the pods' /etc/hosts are written again. */
const REFRESH_DELAY_MS = 500;

interface PodHosts {
  file: string;
  names: Map<string, ServiceName>;
  content: string;
}

export class PodHostsFiles {
  /** By the running pod they belong to (the node agent's record of it). */
  private readonly files = new Map<object, PodHosts>();
  private refresh?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly cluster: ClusterPort,
    private readonly log: Logger,
  ) {}

  /**
   * Writes the pod's own hosts file in its folder when its containers name Services, and returns it
   * (undefined: the pod keeps the host's /etc/hosts). `owner` identifies the running pod until forget().
   */
  async write(owner: object, pod: PodObject, values: string[], dir: string): Promise<string | undefined> {
    const names = serviceNames(values);
    if (names.size === 0) return undefined;
    try {
      const addresses = await resolveServices(this.cluster, names);
      const missing = [...names.keys()].filter((name) => !addresses.has(name));
      if (missing.length > 0) this.log.warn({ pod: objectKey(pod), missing }, 'no ready pod behind these Services yet');
      // Mounted even when nothing resolves yet: it is written again when pods behind the Services become ready.
      const content = hostsFileContent(names.keys(), addresses);
      const file = join(dir, 'hosts');
      writeFileSync(file, content, { mode: 0o644 });
      this.files.set(owner, { file, names, content });
      return file;
    } catch (err) {
      this.log.warn({ pod: objectKey(pod), err: (err as Error).message }, 'could not resolve the Services the pod names; it gets the host\'s /etc/hosts');
      return undefined;
    }
  }

  /** The pod ended: its file is no longer written. */
  forget(owner: object): void {
    this.files.delete(owner);
  }

  /** A pod changed: if running pods resolve Services of its namespace, their files are written again soon. */
  podChanged(pod: PodObject): void {
    if (this.stopped || this.refresh) return;
    const namespaces = new Set([...this.files.values()].flatMap((hosts) => [...hosts.names.values()].map((n) => n.namespace)));
    if (!namespaces.has(pod.metadata.namespace ?? '')) return;
    this.refresh = setTimeout(() => {
      void this.rewrite().finally(() => {
        this.refresh = undefined;
      });
    }, REFRESH_DELAY_MS);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.refresh);
  }

  /** Each Service resolved once; a changed file is rewritten in place. */
  private async rewrite(): Promise<void> {
    const names = new Map([...this.files.values()].flatMap((hosts) => [...hosts.names]));
    try {
      const addresses = await resolveServices(this.cluster, names);
      for (const [owner, hosts] of this.files) {
        const content = hostsFileContent(hosts.names.keys(), addresses);
        if (content === hosts.content || this.stopped || this.files.get(owner) !== hosts) continue;
        try {
          writeFileSync(hosts.file, content);
          hosts.content = content;
        } catch (err) {
          // The pod ended meanwhile and its folder is gone.
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not refresh the pods\' /etc/hosts');
    }
  }
}
