// A shared informer: lists a kind once, then watches from the list's resourceVersion, keeping a
// local cache and telling handlers about every change. Any watch error restarts it with backoff
// (a GoneError relists), so the cache converges whatever the backend does. Scoped to namespaces,
// it lists and watches each of them (one cache), so it needs rights in those namespaces only.
import type { KubeObject, ResourceType } from '../../cluster/objects.js';
import type { ClusterPort, Watch } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';

export interface InformerHandlers<T extends KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export const objectKey = (obj: KubeObject): string =>
  obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name;

export class Informer<T extends KubeObject = KubeObject> {
  private readonly cache = new Map<string, T>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private watches: Watch[] = [];
  private stopped = false;
  private synced = false;
  private failures = 0;
  /** Bumped by each restart, so a run overtaken by one (a watch of another namespace failed) opens nothing more. */
  private generation = 0;
  private restartTimer?: NodeJS.Timeout;
  private syncWaiters: (() => void)[] = [];
  private changes = 0;

  constructor(
    private readonly cluster: ClusterPort,
    readonly type: ResourceType,
    private readonly log: Logger,
    private readonly options: { namespace?: string; namespaces?: readonly string[]; labelSelector?: string } = {},
  ) {}

  /** undefined: every namespace (one request across the cluster). */
  private get scopes(): (string | undefined)[] {
    return this.options.namespaces ? [...this.options.namespaces] : [this.options.namespace];
  }

  addHandlers(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
    if (this.synced) for (const obj of this.cache.values()) handlers.onAdd?.(obj);
  }

  /** Grows with every change of the cache: what was worked out from it at one count holds until the next. */
  get version(): number {
    return this.changes;
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  list(filter: (obj: T) => boolean = () => true): T[] {
    return [...this.cache.values()].filter(filter);
  }

  start(): void {
    void this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await this.stopWatches();
  }

  private async stopWatches(): Promise<void> {
    await Promise.all(this.watches.splice(0).map((w) => w.stop()));
  }

  private async run(): Promise<void> {
    if (this.stopped) return;
    const generation = this.generation;
    const overtaken = (): boolean => this.stopped || generation !== this.generation;
    try {
      const client = this.cluster.resource<T>(this.type);
      const { labelSelector } = this.options;
      const scopes = this.scopes;
      const listed = await Promise.all(scopes.map((namespace) => client.list(namespace, { labelSelector })));
      this.replace(listed.flatMap((list) => list.items));
      for (const [index, namespace] of scopes.entries()) {
        if (overtaken()) return;
        const watch = await client.watch(
          namespace,
          { resourceVersion: listed[index].resourceVersion, labelSelector },
          (event) => {
            this.failures = 0;
            if (event.type === 'BOOKMARK') return;
            if (event.type === 'DELETED') this.remove(event.object);
            else this.upsert(event.object);
          },
          (err) => this.restart(err),
        );
        // stop() or a restart ran while this watch was being opened.
        if (overtaken()) return void (await watch.stop());
        this.watches.push(watch);
      }
      this.markSynced();
    } catch (err) {
      this.restart(err as Error);
    }
  }

  private restart(err: Error): void {
    if (this.stopped) return;
    this.generation += 1;
    this.failures += 1;
    const delay = Math.min(30_000, 200 * 2 ** Math.min(this.failures - 1, 8));
    this.log.warn({ kind: this.type.kind, err: err.message, retryInMs: delay }, 'informer watch ended; restarting');
    void this.stopWatches();
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => void this.run(), delay);
    this.restartTimer.unref();
  }

  /** Applies a full list: emits adds, updates and deletes for what changed since the last view. */
  private replace(items: T[]): void {
    const seen = new Set<string>();
    for (const obj of items) {
      seen.add(objectKey(obj));
      this.upsert(obj);
    }
    for (const [key, obj] of [...this.cache]) if (!seen.has(key)) this.remove(obj);
  }

  private upsert(obj: T): void {
    const key = objectKey(obj);
    const old = this.cache.get(key);
    if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) return;
    this.cache.set(key, obj);
    this.changes += 1;
    for (const h of this.handlers) (old ? h.onUpdate?.(old, obj) : h.onAdd?.(obj));
  }

  private remove(obj: T): void {
    const key = objectKey(obj);
    const old = this.cache.get(key);
    if (!old) return;
    this.cache.delete(key);
    this.changes += 1;
    for (const h of this.handlers) h.onDelete?.(old);
  }

  private markSynced(): void {
    if (this.synced) return;
    this.synced = true;
    for (const resolve of this.syncWaiters.splice(0)) resolve();
  }
}
