// Makes the store's commits durable without holding up the event loop. SQLite commits to its
// write-ahead log without syncing it (synchronous = NORMAL); a write is acknowledged to its caller
// only once an fsync of the log that began after its commit has ended. The log only grows between
// checkpoints (which SQLite syncs itself), so one fsync covers every commit before it: writes that
// wait together share one. With SQLite syncing each commit (synchronous = FULL), every write held
// the service's only thread for the disk: 0.3–25 ms each on this project's test machine, 15 to 20
// writes per invocation.
import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';

export type SyncFile = (fd: number) => Promise<void>;

const fsyncFile: SyncFile = (fd) => new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));

export class WalSync {
  readonly #fd: number;
  #running: Promise<void> | undefined;
  /** The sync after the running one: it covers commits made while that one runs. */
  #next: Promise<void> | undefined;
  #failed: Error | undefined;

  /** `walFile`: SQLite's `<database>-wal`, which it keeps for the whole session (exclusive locking). */
  constructor(
    walFile: string,
    private readonly syncFile: SyncFile = fsyncFile,
  ) {
    this.#fd = openSync(walFile, 'r');
  }

  /** Blocks until every commit made so far is on disk (opening the store). */
  syncNow(): void {
    fsyncSync(this.#fd);
  }

  /** Resolves once every commit made so far is on disk. */
  durable(): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.#next) return this.#next;
    if (!this.#running) return this.#start();
    const next = this.#running.then(
      () => this.#start(),
      () => this.#start(),
    );
    this.#next = next;
    return next;
  }

  /** After the last sync; the database closes after this. */
  async close(): Promise<void> {
    await Promise.allSettled([this.#running, this.#next]);
    closeSync(this.#fd);
  }

  #start(): Promise<void> {
    this.#next = undefined;
    if (this.#failed) return Promise.reject(this.#failed);
    // One sync runs at a time: the next starts only once this one has ended.
    const run = this.syncFile(this.#fd).then(
      () => {
        this.#running = undefined;
      },
      (error: unknown) => {
        this.#running = undefined;
        // Whether the commits reached the disk is unknown, and a later sync cannot tell: no write is acknowledged again.
        this.#failed = new Error(`the store's disk failed to save its changes (${(error as Error).message}); restart browserfn once the data dir's disk works`);
        throw this.#failed;
      },
    );
    this.#running = run;
    return run;
  }
}
