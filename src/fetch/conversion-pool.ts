// A small pool of worker threads for page conversion. Each worker converts one page at a time;
// pages wait for a ready worker. A conversion that outlives its time limit is stopped by
// terminating its worker (the only way to stop synchronous code); a replacement starts at once, and
// the limit of a conversion counts from when a loaded worker takes it, so start-up is not billed.
// Workers are shared fairly between owners (projects): the owner with the fewest conversions running
// goes next, in rotation on a tie; and an owner whose conversion waits with none running, while
// another owner holds several workers, gets one of those: that owner's newest conversion, once it has
// run PREEMPT_AFTER_MS (most finish sooner, and a worker's start costs CPU), is stopped and waits again
// at the head of its queue. So one project's slow pages never hold every worker against another's.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { ConversionRequest, ConversionResult } from './convert/convert-document.js';
import type { ConversionJob, ConversionReply } from './conversion-worker.js';

export class ConversionTimeoutError extends Error {
  constructor(readonly limitMs: number) {
    super(`conversion took longer than ${limitMs} ms`);
    this.name = 'ConversionTimeoutError';
  }
}

export class ConversionCrashError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionCrashError';
  }
}

/** The page took more memory to convert than a worker's heap has (a page of a million elements). */
export class ConversionMemoryError extends Error {
  constructor(readonly heapMb: number) {
    super(`conversion needed more than the worker's ${heapMb} MiB heap`);
    this.name = 'ConversionMemoryError';
  }
}

export interface ConversionLimits {
  /** Longest the conversion itself may run. */
  maxRunMs: number;
  /** Epoch ms after which the caller no longer wants the result (waiting in the queue included). */
  deadline: number;
}

interface Pending {
  owner: string;
  job: ConversionJob;
  limits: ConversionLimits;
  resolve: (result: ConversionResult) => void;
  reject: (err: Error) => void;
  /** Rejects the job when its deadline passes while it waits. */
  waitTimer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current?: Pending & { runTimer: NodeJS.Timeout; limitMs: number; startedAt: number };
}

export interface ConversionPoolOptions {
  size: number;
  heapMb: number;
}

const WORKER_ENTRY = new URL('./conversion-worker.js', import.meta.url);
const PREEMPT_AFTER_MS = 1000;

export class ConversionPool {
  private readonly slots: Slot[] = [];
  /** Waiting conversions by owner, each in arrival order; owners in the order they were last served. */
  private readonly waiting = new Map<string, Pending[]>();
  private nextId = 1;
  private closed = false;
  /** A look again at a waiting owner's turn, once the conversion it would stop is old enough. */
  private preemptTimer?: NodeJS.Timeout;

  constructor(private readonly options: ConversionPoolOptions) {}

  /** Converts in a worker for `owner`; rejects with ConversionTimeoutError past either limit. */
  run(request: ConversionRequest, limits: ConversionLimits, owner: string): Promise<ConversionResult> {
    if (this.closed) return Promise.reject(new Error('conversion pool is closed'));
    return new Promise((resolve, reject) => {
      const pending: Pending = { owner, job: { id: this.nextId++, request }, limits, resolve, reject };
      this.enqueue(pending, 'last');
      this.dispatch();
    });
  }

  /** Starts every worker now, not on demand; resolves once all are ready to convert. */
  async start(): Promise<void> {
    while (this.slots.length < this.options.size) this.spawn();
    const starting = this.slots.filter((slot) => !slot.ready);
    // Held alive while they start: this wait may be all a caller has.
    for (const slot of starting) slot.worker.ref();
    try {
      await Promise.all(starting.map((slot) => once(slot.worker, 'message')));
    } finally {
      for (const slot of starting) slot.worker.unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.preemptTimer);
    for (const pending of [...this.waiting.values()].flat()) {
      clearTimeout(pending.waitTimer);
      pending.reject(new Error('conversion pool is closed'));
    }
    this.waiting.clear();
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  /** Queues `pending` for its owner; it is rejected if its deadline passes while it waits. */
  private enqueue(pending: Pending, where: 'first' | 'last'): void {
    const queue = this.waiting.get(pending.owner) ?? [];
    if (where === 'first') queue.unshift(pending);
    else queue.push(pending);
    this.waiting.set(pending.owner, queue);
    pending.waitTimer = setTimeout(() => {
      const left = this.waiting.get(pending.owner);
      const i = left?.indexOf(pending) ?? -1;
      if (i < 0) return;
      left!.splice(i, 1);
      if (left!.length === 0) this.waiting.delete(pending.owner);
      pending.reject(new ConversionTimeoutError(Math.max(0, pending.limits.deadline - Date.now())));
    }, Math.max(0, pending.limits.deadline - Date.now()));
  }

  private runningFor(owner: string): number {
    return this.slots.filter((slot) => slot.current?.owner === owner).length;
  }

  /** The owner whose conversion goes next: fewest running; on a tie, served longest ago. */
  private nextOwner(): string | undefined {
    let next: { owner: string; running: number } | undefined;
    for (const owner of this.waiting.keys()) {
      const running = this.runningFor(owner);
      if (!next || running < next.running) next = { owner, running };
    }
    return next?.owner;
  }

  private dispatch(): void {
    for (let owner = this.nextOwner(); owner !== undefined; owner = this.nextOwner()) {
      const slot = this.slots.find((s) => s.ready && !s.current);
      if (!slot) {
        if (this.slots.length < this.options.size) this.spawn();
        else this.preemptFor(owner);
        return;
      }
      const queue = this.waiting.get(owner)!;
      const pending = queue.shift()!;
      // To the back of the rotation.
      this.waiting.delete(owner);
      if (queue.length > 0) this.waiting.set(owner, queue);
      clearTimeout(pending.waitTimer);
      const limitMs = Math.min(pending.limits.maxRunMs, pending.limits.deadline - Date.now());
      if (limitMs <= 0) {
        pending.reject(new ConversionTimeoutError(pending.limits.maxRunMs));
        continue;
      }
      slot.current = { ...pending, limitMs, startedAt: performance.now(), runTimer: setTimeout(() => this.expire(slot), limitMs) };
      slot.worker.postMessage(pending.job);
    }
  }

  /**
   * Every worker is busy and `owner` has none: if another owner holds several, its newest
   * conversion is stopped (once old enough) and queued again first, and the worker's replacement
   * goes to `owner`.
   */
  private preemptFor(owner: string): void {
    if (this.runningFor(owner) > 0 || this.slots.some((slot) => !slot.current)) return;
    const busiest = this.slots.map((slot) => slot.current!.owner).reduce((a, b) => (this.runningFor(b) > this.runningFor(a) ? b : a));
    if (this.runningFor(busiest) < 2) return;
    const slot = this.slots.filter((s) => s.current!.owner === busiest).reduce((a, b) => (b.current!.startedAt > a.current!.startedAt ? b : a));
    const age = performance.now() - slot.current!.startedAt;
    if (age < PREEMPT_AFTER_MS) {
      this.preemptTimer ??= setTimeout(() => {
        this.preemptTimer = undefined;
        this.dispatch();
      }, PREEMPT_AFTER_MS - age);
      return;
    }
    const { runTimer, owner: holder, job, limits, resolve, reject } = slot.current!;
    clearTimeout(runTimer);
    slot.current = undefined;
    this.remove(slot);
    void slot.worker.terminate();
    this.enqueue({ owner: holder, job, limits, resolve, reject }, 'first');
    this.replenish();
  }

  private spawn(): void {
    const worker = new Worker(WORKER_ENTRY, { resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb } });
    const slot: Slot = { worker, ready: false };
    worker.on('message', (reply: ConversionReply) => {
      if ('ready' in reply) {
        slot.ready = true;
        this.dispatch();
        return;
      }
      const current = slot.current;
      if (!current || current.job.id !== reply.id) return;
      clearTimeout(current.runTimer);
      slot.current = undefined;
      if (reply.ok) current.resolve(reply.result);
      else current.reject(new ConversionCrashError(reply.message));
      this.dispatch();
    });
    const fail = (err: Error): void => {
      if (!this.remove(slot)) return;
      const current = slot.current;
      slot.current = undefined;
      if (current) {
        clearTimeout(current.runTimer);
        const outOfMemory = (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
        current.reject(outOfMemory ? new ConversionMemoryError(this.options.heapMb) : new ConversionCrashError(`conversion worker failed: ${err.message}`));
      }
      this.replenish();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
    // After the listeners: adding a 'message' listener refs the worker again.
    worker.unref();
    this.slots.push(slot);
  }

  private expire(slot: Slot): void {
    const current = slot.current;
    if (!current) return;
    slot.current = undefined;
    this.remove(slot);
    void slot.worker.terminate();
    current.reject(new ConversionTimeoutError(current.limitMs));
    this.replenish();
  }

  /** A stopped worker is replaced at once, so the next conversion does not wait for start-up. */
  private replenish(): void {
    if (this.closed) return;
    if (this.slots.length < this.options.size) this.spawn();
    this.dispatch();
  }

  private remove(slot: Slot): boolean {
    const i = this.slots.indexOf(slot);
    if (i < 0) return false;
    this.slots.splice(i, 1);
    return true;
  }
}
