// Test helpers for watches and asynchronous conditions: wait on events, never on the clock.
import type { KubeObject } from '../../src/cluster/objects.js';
import type { WatchEvent } from '../../src/cluster/port.js';

const DEFAULT_TIMEOUT_MS = 20_000;

/** Records a watch's events and errors; `until` resolves as soon as a condition holds. */
export class EventCollector<T extends KubeObject = KubeObject> {
  readonly events: WatchEvent<T>[] = [];
  readonly errors: Error[] = [];
  private waiters: (() => void)[] = [];

  readonly onEvent = (event: WatchEvent<T>): void => {
    this.events.push(event);
    this.wake();
  };

  readonly onError = (err: Error): void => {
    this.errors.push(err);
    this.wake();
  };

  /** "ADDED a", "DELETED b", …: compact and readable in assertion diffs. */
  get summary(): string[] {
    return this.events.map((e) => `${e.type} ${e.object.metadata.name}`);
  }

  async until(condition: (events: WatchEvent<T>[]) => boolean, what: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
    if (condition(this.events)) return;
    if (this.errors.length) throw this.errors[0];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; events so far: ${JSON.stringify(this.summary)}; errors: ${this.errors.map((e) => e.message).join('; ')}`));
      }, timeoutMs);
      const check = (): void => {
        if (!condition(this.events) && this.errors.length === 0) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        if (condition(this.events)) resolve();
        else reject(this.errors[0]);
      };
      this.waiters.push(check);
    });
  }

  untilCount(count: number, what = `${count} events`): Promise<void> {
    return this.until((events) => events.length >= count, what);
  }

  /** Waits for an event about `name` of the given type (e.g. a barrier object created last). */
  untilSeen(type: WatchEvent<T>['type'], name: string): Promise<void> {
    return this.until((events) => events.some((e) => e.type === type && e.object.metadata.name === name), `${type} ${name}`);
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** Bounded poll for conditions that settle asynchronously on some backends (e.g. garbage collection). */
export async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
