// A small pool of worker threads for page conversion. Each worker converts one page at a time;
// pages wait in a queue for a free worker. A conversion that outlives its time limit is stopped
// by terminating its worker (the only way to stop synchronous code), and a fresh worker replaces it.
import { Worker } from 'node:worker_threads';
import type { ConversionRequest } from './convert/convert-document.js';
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

interface Pending {
  job: ConversionJob;
  timeoutMs: number;
  /** Epoch ms: the time limit counts from the call, waiting in the queue included. */
  deadline: number;
  resolve: (content: unknown) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  current?: Pending & { timer: NodeJS.Timeout };
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

  /** Converts in a worker; rejects with ConversionTimeoutError past timeoutMs (queueing time included). */
  run(request: ConversionRequest, timeoutMs: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('conversion pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ job: { id: this.nextId++, request }, timeoutMs, deadline: Date.now() + timeoutMs, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error('conversion pool is closed'));
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  /** Workers currently running (for tests and metrics). */
  get busy(): number {
    return this.slots.filter((s) => s.current).length;
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.current);
      if (!slot && this.slots.length < this.options.size) slot = this.spawn();
      if (!slot) return;
      const pending = this.queue.shift()!;
      const left = pending.deadline - Date.now();
      if (left <= 0) {
        pending.reject(new ConversionTimeoutError(pending.timeoutMs));
        continue;
      }
      const timer = setTimeout(() => this.expire(slot!), left);
      slot.current = { ...pending, timer };
      slot.worker.postMessage(pending.job);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_ENTRY, { resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb } });
    worker.unref();
    const slot: Slot = { worker };
    worker.on('message', (reply: ConversionReply) => {
      const current = slot.current;
      if (!current || current.job.id !== reply.id) return;
      clearTimeout(current.timer);
      slot.current = undefined;
      if (reply.ok) current.resolve(reply.content);
      else current.reject(new ConversionCrashError(reply.message));
      this.dispatch();
    });
    const fail = (err: Error): void => {
      this.remove(slot);
      const current = slot.current;
      if (current) {
        clearTimeout(current.timer);
        slot.current = undefined;
        current.reject(new ConversionCrashError(`conversion worker failed: ${err.message}`));
      }
      this.dispatch();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.slots.includes(slot)) fail(new Error(`exited with code ${code}`));
    });
    this.slots.push(slot);
    return slot;
  }

  private expire(slot: Slot): void {
    const current = slot.current;
    if (!current) return;
    slot.current = undefined;
    this.remove(slot);
    void slot.worker.terminate();
    current.reject(new ConversionTimeoutError(current.timeoutMs));
    this.dispatch();
  }

  private remove(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }
}
