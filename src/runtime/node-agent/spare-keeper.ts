// Keeps one thing made ahead ready for the next pod: a pod network (spare-networks.ts) or a whole
// sandbox (spare-sandboxes.ts). What is taken serves one pod and ends with it. The next one is made
// once the taker has ended, or REFILL_DELAY_MS after the take, so that making it does not take CPU
// from the pod starting; after MAX_FAILURES failures in a row none is made any more (logged once).
import type { Logger } from '../../config/logger.js';

export interface MadeAhead {
  /** Settles once it has ended (used, given up, or failed). */
  readonly ended: Promise<void>;
}

export interface SpareMaker<T extends MadeAhead> {
  make(): Promise<T>;
  /** Ends one that was never taken, giving back what it holds. */
  discard(spare: T): Promise<void>;
  /** What is kept ready, for the logs ("pod networks"). */
  readonly what: string;
  /** What a pod does when none can be made, for the log line that says so. */
  readonly otherwise: string;
  /** What the logs say of one made (its processes). */
  describe(spare: T): Record<string, unknown>;
  log: Logger;
}

const REFILL_DELAY_MS = 1000;
const MAX_FAILURES = 3;

export class SpareKeeper<T extends MadeAhead> {
  #ready: T | undefined;
  #making: Promise<void> | undefined;
  #failures = 0;
  #closed = false;

  constructor(private readonly maker: SpareMaker<T>) {}

  /** Makes the first one, after `delayMs`. */
  start(delayMs = 0): void {
    if (delayMs === 0) this.#refill();
    else setTimeout(() => this.#refill(), delayMs).unref();
  }

  /** The one made ahead, if it is ready: what it holds is the caller's from now on. */
  take(): T | undefined {
    const spare = this.#ready;
    if (!spare) return undefined;
    this.#ready = undefined;
    const timer = setTimeout(() => this.#refill(), REFILL_DELAY_MS);
    timer.unref();
    void spare.ended.then(() => {
      clearTimeout(timer);
      this.#refill();
    });
    return spare;
  }

  /** Ends the one waiting here and any being made. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#making;
    const spare = this.#ready;
    this.#ready = undefined;
    if (spare) await this.maker.discard(spare);
  }

  #refill(): void {
    if (this.#closed || this.#ready || this.#making || this.#failures >= MAX_FAILURES) return;
    this.#making = this.maker.make().then(
      async (spare) => {
        this.#making = undefined;
        if (this.#closed) return this.maker.discard(spare);
        this.#failures = 0;
        this.#ready = spare;
        this.maker.log.debug({ what: this.maker.what, ...this.maker.describe(spare) }, 'made ahead');
        // One that ends while waiting (killed from outside) is given back, and another made.
        void spare.ended.then(() => {
          if (this.#ready !== spare) return;
          this.#ready = undefined;
          void this.maker.discard(spare);
          this.#failed(new Error('it exited while it waited'));
        });
      },
      (err: unknown) => {
        this.#making = undefined;
        this.#failed(err as Error);
      },
    );
  }

  #failed(err: Error): void {
    this.#failures++;
    const { log, what, otherwise } = this.maker;
    if (this.#failures >= MAX_FAILURES) {
      log.warn({ err: err.message }, `${what} cannot be made ahead on this node; ${otherwise}`);
      return;
    }
    log.debug({ err: err.message }, `could not make ${what} ahead; trying again`);
    setTimeout(() => this.#refill(), REFILL_DELAY_MS).unref();
  }
}
