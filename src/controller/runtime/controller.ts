// A controller: a work queue of object keys fed by informers, drained by workers that call one
// Reconciler. Reconcilers are level-triggered: they read the world and move it one step on.
import type { KubeObject, ResourceType } from '../../cluster/objects.js';
import type { Logger } from '../../config/logger.js';
import { isConflict } from '../../cluster/port.js';
import { WorkQueue } from './workqueue.js';
import { Informer, objectKey } from './informer.js';

export interface Request {
  namespace?: string;
  name: string;
}

export interface Result {
  /** Reconcile this key again after the delay even if nothing changes (timeouts, polling). */
  requeueAfterMs?: number;
}

export interface Reconciler {
  reconcile(request: Request): Promise<Result | void>;
}

export interface ControllerOptions {
  name: string;
  workers?: number;
  onQueueDepth?: (depth: number) => void;
}

export const keyOf = (req: Request): string => (req.namespace ? `${req.namespace}/${req.name}` : req.name);
export const requestOf = (key: string): Request => {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
};

export class Controller {
  readonly queue: WorkQueue;
  private running: Promise<void>[] = [];

  constructor(
    private readonly options: ControllerOptions,
    private readonly reconciler: Reconciler,
    private readonly log: Logger,
  ) {
    this.queue = new WorkQueue({ onDepth: options.onQueueDepth });
  }

  /** Enqueue the primary object on every change of it. */
  watchFor<T extends KubeObject>(informer: Informer<T>): this {
    const enqueue = (obj: T) => this.queue.add(objectKey(obj));
    informer.addHandlers({ onAdd: enqueue, onUpdate: (_old, obj) => enqueue(obj), onDelete: enqueue });
    return this;
  }

  /** Enqueue the controlling owner (of the given kind) whenever an owned object changes. */
  owns<T extends KubeObject>(informer: Informer<T>, ownerType: ResourceType): this {
    const enqueueOwner = (obj: T) => {
      for (const ref of obj.metadata.ownerReferences ?? []) {
        if (ref.kind === ownerType.kind && ref.controller) {
          this.queue.add(keyOf({ namespace: obj.metadata.namespace, name: ref.name }));
        }
      }
    };
    informer.addHandlers({ onAdd: enqueueOwner, onUpdate: (_old, obj) => enqueueOwner(obj), onDelete: enqueueOwner });
    return this;
  }

  /** Enqueue whatever `map` says an object of another kind concerns. */
  watches<T extends KubeObject>(informer: Informer<T>, map: (obj: T) => Request[]): this {
    const enqueue = (obj: T) => map(obj).forEach((req) => this.queue.add(keyOf(req)));
    informer.addHandlers({ onAdd: enqueue, onUpdate: (_old, obj) => enqueue(obj), onDelete: enqueue });
    return this;
  }

  start(): void {
    const workers = this.options.workers ?? 2;
    for (let i = 0; i < workers; i++) this.running.push(this.work());
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await Promise.all(this.running);
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      // Each reconcile in a turn of the event loop of its own: with the embedded store its writes
      // block (an fsync each), and the API's requests are served between reconciles, not after a
      // whole chain of them (a warm invocation's final status read waited 40-50 ms behind the
      // refill of its pool).
      await new Promise((resolve) => setImmediate(resolve));
      try {
        const result = await this.reconciler.reconcile(requestOf(key));
        this.queue.forget(key);
        if (result?.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
      } catch (err) {
        // A conflict only means another writer got there first: the retry reads the new state.
        const level = isConflict(err) ? 'debug' : 'warn';
        this.log[level]({ controller: this.options.name, key, err: (err as Error).message }, 'reconcile failed; retrying with backoff');
        this.queue.addRateLimited(key);
      } finally {
        this.queue.done(key);
      }
    }
  }
}
