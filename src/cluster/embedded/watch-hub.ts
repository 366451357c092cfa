// Fan-out of committed store events to watchers. Each watcher filters by resource, namespace and
// selectors the way the API server's watch cache does (an object that stops matching arrives as
// DELETED, one that starts matching as ADDED) and delivers from its own queue: asynchronously,
// in order, never after stop().
import type { KubeObject } from '../objects.js';
import type { Watch, WatchEvent } from '../port.js';
import type { LabelSelector } from '../labels.js';
import type { FieldSelector } from './field-selector.js';

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change. `object` is shared by all watchers: read it, never hand it out. */
export interface StoreEvent {
  resourceVersion: number;
  type: StoreEventType;
  resource: string;
  namespace: string;
  object: KubeObject;
  json: string;
  /** The object before a MODIFIED that changed its labels (for selector transitions). */
  previous?: { object: KubeObject; json: string };
}

export interface WatchFilter {
  resource: string;
  /** Undefined: every namespace. */
  namespace?: string;
  /** Only events after this resourceVersion (the one the watch resumes from). */
  after?: number;
  labels: LabelSelector;
  fields: FieldSelector;
}

type Pending = { type: StoreEventType; json: string; resourceVersion?: string } | { error: Error };

/** Events handed to a callback per turn of the event loop, so a long backlog does not starve I/O. */
const DELIVERY_BATCH = 500;

export class Watcher implements Watch {
  readonly done: Promise<void>;
  private resolveDone!: () => void;
  private queue: Pending[] = [];
  private scheduled = false;
  private ended = false;

  constructor(
    private readonly hub: WatchHub,
    private readonly filter: WatchFilter,
    private readonly onEvent: (event: WatchEvent<KubeObject>) => void,
    private readonly onError?: (err: Error) => void,
  ) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  offer(event: StoreEvent): void {
    if (this.ended || event.resource !== this.filter.resource) return;
    if (this.filter.namespace !== undefined && event.namespace !== this.filter.namespace) return;
    if (this.filter.after !== undefined && event.resourceVersion <= this.filter.after) return;
    const pending = this.convert(event);
    if (!pending) return;
    this.queue.push(pending);
    this.schedule();
  }

  /** Ends the watch with an error, after the events already queued. */
  fail(error: Error): void {
    if (this.ended) return;
    this.queue.push({ error });
    this.schedule();
  }

  async stop(): Promise<void> {
    this.end();
  }

  /** Ends without an error (stop, or the store closing). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.queue = [];
    this.hub.remove(this);
    this.resolveDone();
  }

  private passes(obj: KubeObject): boolean {
    return this.filter.labels.matches(obj.metadata.labels) && this.filter.fields.matches(obj);
  }

  private convert(event: StoreEvent): Pending | undefined {
    if (event.type !== 'MODIFIED') return this.passes(event.object) ? { type: event.type, json: event.json } : undefined;
    const now = this.passes(event.object);
    const before = event.previous ? this.passes(event.previous.object) : now;
    if (now) return { type: before ? 'MODIFIED' : 'ADDED', json: event.json };
    // Stopped matching: this watcher sees it deleted, with its last matching content, at this version.
    if (before) return { type: 'DELETED', json: event.previous?.json ?? event.json, resourceVersion: String(event.resourceVersion) };
    return undefined;
  }

  private schedule(): void {
    if (this.scheduled || this.ended) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, DELIVERY_BATCH);
    for (const pending of batch) {
      if (this.ended) return;
      if ('error' in pending) return this.finish(pending.error);
      const object = JSON.parse(pending.json) as KubeObject;
      if (pending.resourceVersion) object.metadata.resourceVersion = pending.resourceVersion;
      try {
        this.onEvent({ type: pending.type, object });
      } catch (err) {
        // A throwing handler ends the watch; the owner hears why and can start over.
        return this.finish(err instanceof Error ? err : new Error(String(err)));
      }
    }
    if (this.queue.length) this.schedule();
  }

  private finish(error: Error): void {
    const onError = this.onError;
    this.ended = true;
    this.queue = [];
    this.hub.remove(this);
    try {
      onError?.(error);
    } finally {
      this.resolveDone();
    }
  }
}

export class WatchHub {
  private readonly watchers = new Set<Watcher>();

  add(filter: WatchFilter, onEvent: (event: WatchEvent<KubeObject>) => void, onError?: (err: Error) => void): Watcher {
    const watcher = new Watcher(this, filter, onEvent, onError);
    this.watchers.add(watcher);
    return watcher;
  }

  remove(watcher: Watcher): void {
    this.watchers.delete(watcher);
  }

  publish(events: readonly StoreEvent[]): void {
    for (const watcher of [...this.watchers]) for (const event of events) watcher.offer(event);
  }

  closeAll(): void {
    for (const watcher of [...this.watchers]) watcher.end();
  }
}
