// A de-duplicating, rate-limited work queue in the manner of client-go's workqueue:
// a key is queued at most once; a key re-added while it is being processed is queued again
// when its processing is done; failures back off exponentially per key.

export interface WorkQueueOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Called with the number of waiting keys whenever it changes. */
  onDepth?: (depth: number) => void;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly options: WorkQueueOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 50;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
  }

  get length(): number {
    return this.queue.length;
  }

  add(key: string): void {
    if (this.shuttingDown) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.processing.add(key);
      waiter(key);
      return;
    }
    this.queued.add(key);
    this.queue.push(key);
    this.options.onDepth?.(this.queue.length);
  }

  /** Adds the key after a delay; an earlier pending delay for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const due = Date.now() + delayMs;
    const existing = this.timers.get(key);
    if (existing) {
      if (existing.due <= due) return;
      clearTimeout(existing.timer);
    }
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, { timer, due });
  }

  /** Re-queues a key that failed, with exponential backoff per key. */
  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.addAfter(key, Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** n));
  }

  /** Clears a key's failure history after it was processed successfully. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Waits for the next key; undefined once the queue shuts down. */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.queue.shift();
    if (key !== undefined) {
      this.queued.delete(key);
      this.processing.add(key);
      this.options.onDepth?.(this.queue.length);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.delete(key)) this.add(key);
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
