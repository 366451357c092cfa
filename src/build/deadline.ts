// The build's stop signal: aborted with a BuildFailure when the build time limit passes or the
// agent is terminated; steps kill their child processes on it, and waits reject with its reason.
import { BuildFailure } from './build-failure.js';

export class BuildDeadline {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #stopped: Promise<never>;

  constructor(seconds: number) {
    this.#timer = setTimeout(() => this.stop(new BuildFailure('TIMED_OUT', `The build did not finish within ${seconds} seconds`)), seconds * 1000);
    this.#stopped = new Promise<never>((_, reject) => {
      this.#controller.signal.addEventListener('abort', () => reject(this.#controller.signal.reason as Error), { once: true });
    });
    this.#stopped.catch(() => undefined);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  stop(reason: BuildFailure): void {
    clearTimeout(this.#timer);
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }

  /** `work`, unless the build is stopped first. */
  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.#stopped]);
  }

  dispose(): void {
    clearTimeout(this.#timer);
  }
}

/** Resolves 'exited' when `exited` settles, 'timeout' after `seconds`, 'stopped' on the signal. */
export async function waitBounded(exited: Promise<unknown>, seconds: number, signal: AbortSignal): Promise<'exited' | 'timeout' | 'stopped'> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      exited.then(() => 'exited' as const),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), seconds * 1000))),
      new Promise<'stopped'>((resolve) => {
        onAbort = () => resolve('stopped');
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
