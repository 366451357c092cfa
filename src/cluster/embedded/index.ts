// The embedded backend of the cluster port: `browserfn serve` keeps its objects in one SQLite file
// with the semantics of the Kubernetes API server (see docs/store.md).
import type { KubeObject, ResourceType } from '../objects.js';
import type { ClusterPort, DeleteOptions, ListOptions, ObjectList, ResourceClient, Watch, WatchEvent, WatchOptions } from '../port.js';
import { EmbeddedStore, type EmbeddedStoreOptions } from './store.js';

export type EmbeddedClusterOptions = EmbeddedStoreOptions;
export { DEFAULT_EVENT_RETENTION, DEFAULT_EVENT_RETENTION_BYTES } from './store.js';

class EmbeddedResourceClient<T extends KubeObject> implements ResourceClient<T> {
  constructor(
    private readonly store: EmbeddedStore,
    readonly type: ResourceType,
  ) {}

  async get(namespace: string | undefined, name: string): Promise<T | undefined> {
    return this.store.get(this.type, namespace, name) as T | undefined;
  }

  async list(namespace: string | undefined, options?: ListOptions): Promise<ObjectList<T>> {
    return this.store.list(this.type, namespace, options) as ObjectList<T>;
  }

  async create(obj: T): Promise<T> {
    return this.store.create(this.type, obj) as T;
  }

  async update(obj: T): Promise<T> {
    return this.store.update(this.type, obj, 'main') as T;
  }

  async updateStatus(obj: T): Promise<T> {
    return this.store.update(this.type, obj, 'status') as T;
  }

  async delete(namespace: string | undefined, name: string, options?: DeleteOptions): Promise<void> {
    this.store.delete(this.type, namespace, name, options);
  }

  async watch(namespace: string | undefined, options: WatchOptions, onEvent: (event: WatchEvent<T>) => void, onError?: (err: Error) => void): Promise<Watch> {
    return this.store.watch(this.type, namespace, options, onEvent as (event: WatchEvent<KubeObject>) => void, onError);
  }
}

class EmbeddedCluster implements ClusterPort {
  readonly backend = 'embedded';

  constructor(private readonly store: EmbeddedStore) {}

  resource<T extends KubeObject = KubeObject>(type: ResourceType): ResourceClient<T> {
    return new EmbeddedResourceClient<T>(this.store, type);
  }

  async close(): Promise<void> {
    this.store.close();
  }
}

/** Opens (creating if needed) the store file; ':memory:' keeps everything in memory. */
export async function openEmbeddedCluster(options: EmbeddedClusterOptions): Promise<ClusterPort> {
  return new EmbeddedCluster(EmbeddedStore.open(options));
}
