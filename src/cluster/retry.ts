// Optimistic concurrency, the client-go way: re-read, change, write; when the write loses to a
// concurrent one (409 Conflict), run the whole step again on the fresh object.
import { isConflict } from './port.js';

export interface RetryOptions {
  /** Further runs after the first (client-go's DefaultRetry makes 5 steps in all). */
  retries?: number;
  /** Which failures mean "someone else changed it first"; conflicts by default. */
  retriable?: (err: unknown) => boolean;
}

const DEFAULT_RETRIES = 9;
/** A short, jittered pause between runs, so contending writers spread out instead of colliding again. */
const BACKOFF_MS = 5;

/** Runs `step` (which must read what it changes) until it succeeds, fails otherwise, or runs out of retries. */
export async function retryOnConflict<T>(step: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const retries = options.retries ?? DEFAULT_RETRIES;
  const retriable = options.retriable ?? isConflict;
  for (let attempt = 0; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (attempt >= retries || !retriable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * BACKOFF_MS * (attempt + 1)));
    }
  }
}
