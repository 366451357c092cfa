// A small pool of worker threads for page conversion. Each worker converts one page at a time;
// pages wait in a queue for a ready worker. A conversion that outlives its time limit is stopped by
// terminating its worker (the only way to stop synchronous code); a replacement starts at once, and
// the limit of a conversion counts from when a loaded worker takes it, so start-up is not billed.
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

export interface ConversionLimits {
  /** Longest the conversion itself may run. */
  maxRunMs: number;
  /** Epoch ms after which the caller no longer wants the result (waiting in the queue included). */
  deadline: number;
}

interface Pending {
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
  current?: Pending & { runTimer: NodeJS.Timeout; limitMs: number };
}

export interface ConversionPoolOptions {
  size: number;
  heapMb: number;
}

const WORKER_ENTRY = new URL('./conversion-worker.js', import.meta.url);

export class ConversionPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ConversionPoolOptions) {}

  /** Converts in a worker; rejects with ConversionTimeoutError past either limit. */
  run(request: ConversionRequest, limits: ConversionLimits): Promise<ConversionResult> {
    if (this.closed) return Promise.reject(new Error('conversion pool is closed'));
    return new Promise((resolve, reject) => {
      const pending: Pending = { job: { id: this.nextId++, request }, limits, resolve, reject };
      pending.waitTimer = setTimeout(() => {
        const i = this.queue.indexOf(pending);
        if (i < 0) return;
        this.queue.splice(i, 1);
        reject(new ConversionTimeoutError(Math.max(0, limits.deadline - Date.now())));
      }, Math.max(0, limits.deadline - Date.now()));
      this.queue.push(pending);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) {
      clearTimeout(pending.waitTimer);
      pending.reject(new Error('conversion pool is closed'));
    }
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => s.ready && !s.current);
      if (!slot) {
        if (this.slots.length < this.options.size) this.spawn();
        return;
      }
      const pending = this.queue.shift()!;
      clearTimeout(pending.waitTimer);
      const limitMs = Math.min(pending.limits.maxRunMs, pending.limits.deadline - Date.now());
      if (limitMs <= 0) {
        pending.reject(new ConversionTimeoutError(pending.limits.maxRunMs));
        continue;
      }
      slot.current = { ...pending, limitMs, runTimer: setTimeout(() => this.expire(slot), limitMs) };
      slot.worker.postMessage(pending.job);
    }
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
        current.reject(new ConversionCrashError(`conversion worker failed: ${err.message}`));
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
