// The port's typed access to one kind, as REST calls on the API server.
import type { KubeObject, ResourceType } from '../objects.js';
import { NotFoundError, type DeleteOptions, type ListOptions, type ObjectList, type ResourceClient, type Watch, type WatchEvent, type WatchOptions } from '../port.js';
import { KubeNotFoundError } from './errors.js';
import { forCreate, forUpdate, fromServer } from './normalize.js';
import { collectionPath, objectPath } from './paths.js';
import type { KubeRestClient, Query } from './rest-client.js';
import { KubeWatch } from './watch.js';

/** Lists are read in pages of this many objects (one consistent snapshot across pages). */
const LIST_PAGE_SIZE = 500;

interface ListBody {
  metadata: { resourceVersion: string; continue?: string };
  items: KubeObject[];
}

export interface WatchRegistry {
  minWatchTimeoutSeconds: number;
  add(watch: KubeWatch<KubeObject>): void;
  remove(watch: KubeWatch<KubeObject>): void;
}

const selectorsOf = (options: ListOptions = {}): Query => ({ labelSelector: options.labelSelector || undefined, fieldSelector: options.fieldSelector || undefined });

export class KubeResourceClient<T extends KubeObject> implements ResourceClient<T> {
  constructor(
    private readonly rest: KubeRestClient,
    readonly type: ResourceType,
    private readonly watches: WatchRegistry,
  ) {}

  async get(namespace: string | undefined, name: string): Promise<T | undefined> {
    const path = objectPath(this.type, namespace, name);
    try {
      const { body } = await this.rest.requestJson('GET', path);
      return fromServer<T>(this.type, body as KubeObject);
    } catch (err) {
      if (!(err instanceof KubeNotFoundError)) throw err;
      // A missing object is undefined; a missing resource (no CRDs installed) is an error worth seeing.
      if (err.details?.name === name) return undefined;
      throw new NotFoundError(`the API server does not serve ${path} (${err.message}); are the browserfn CRDs installed?`);
    }
  }

  async list(namespace: string | undefined, options?: ListOptions): Promise<ObjectList<T>> {
    const path = collectionPath(this.type, namespace);
    const items: T[] = [];
    let resourceVersion = '';
    let next: string | undefined;
    do {
      const { body } = await this.rest.requestJson('GET', path, { query: { ...selectorsOf(options), limit: String(LIST_PAGE_SIZE), continue: next } });
      const page = body as ListBody;
      resourceVersion ||= page.metadata.resourceVersion;
      for (const item of page.items) items.push(fromServer<T>(this.type, item));
      next = page.metadata.continue || undefined;
    } while (next);
    return { items, resourceVersion };
  }

  async create(obj: T): Promise<T> {
    const path = collectionPath(this.type, this.namespaceOf(obj));
    const { body } = await this.rest.requestJson('POST', path, { body: forCreate(this.type, obj) });
    return fromServer<T>(this.type, body as KubeObject);
  }

  async update(obj: T): Promise<T> {
    const path = objectPath(this.type, this.namespaceOf(obj), obj.metadata.name);
    const { body } = await this.rest.requestJson('PUT', path, { body: forUpdate(this.type, obj) });
    return fromServer<T>(this.type, body as KubeObject);
  }

  /** PUT on the status subresource; kinds without one (ConfigMap, Secret, Lease) have no separate status and take a plain update. */
  async updateStatus(obj: T): Promise<T> {
    if (!this.type.hasStatusSubresource) return this.update(obj);
    const path = `${objectPath(this.type, this.namespaceOf(obj), obj.metadata.name)}/status`;
    const { body } = await this.rest.requestJson('PUT', path, { body: forUpdate(this.type, obj) });
    return fromServer<T>(this.type, body as KubeObject);
  }

  async delete(namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<void> {
    const preconditions = options.uid || options.resourceVersion ? { uid: options.uid, resourceVersion: options.resourceVersion } : undefined;
    await this.rest.requestJson('DELETE', objectPath(this.type, namespace, name), {
      // Background: the object goes now and the garbage collector removes its dependents.
      body: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy: 'Background',
        ...(preconditions ? { preconditions } : {}),
        ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
      },
    });
  }

  async watch(namespace: string | undefined, options: WatchOptions, onEvent: (event: WatchEvent<T>) => void, onError?: (err: Error) => void): Promise<Watch> {
    const path = collectionPath(this.type, namespace);
    const selectors = selectorsOf(options);
    // The API server starts a watch without a resourceVersion with every current object as ADDED;
    // the port promises only later events, so the watch starts at the collection's current version.
    const resourceVersion = options.resourceVersion ?? (await this.currentResourceVersion(path, selectors));
    const watch = new KubeWatch<T>(
      this.rest,
      this.type,
      { path, selectors, resourceVersion, minTimeoutSeconds: this.watches.minWatchTimeoutSeconds },
      onEvent,
      onError,
      (ended) => this.watches.remove(ended as unknown as KubeWatch<KubeObject>),
    );
    this.watches.add(watch as unknown as KubeWatch<KubeObject>);
    await watch.start();
    return watch;
  }

  private async currentResourceVersion(path: string, selectors: Query): Promise<string> {
    const { body } = await this.rest.requestJson('GET', path, { query: { ...selectors, limit: '1' } });
    return (body as ListBody).metadata.resourceVersion;
  }

  private namespaceOf(obj: T): string | undefined {
    return this.type.namespaced ? obj.metadata.namespace : undefined;
  }
}
