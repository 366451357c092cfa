// When the store's write-ahead log is copied back into the database file: a checkpoint, the one
// step of a write that syncs the disk with synchronous=NORMAL (3-15 ms of the service's one thread).
// Left to SQLite, it runs inside whichever commit fills the log past 1000 pages, about one write in
// 150 here, in the middle of whatever request made that write (an invocation's claim or its
// report). Here it runs once writes pause, and inside a commit only when the log grew to that
// size without a pause.
export interface CheckpointScheduleOptions {
  /** A pause in writes this long runs a checkpoint. */
  idleMs: number;
  /** Commits after which a checkpoint runs at once, pause or not (bounds the log: about 27 KB per commit). */
  maxCommits: number;
}

export const DEFAULT_CHECKPOINT_SCHEDULE: CheckpointScheduleOptions = { idleMs: 100, maxCommits: 150 };

export class CheckpointSchedule {
  #commits = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly checkpoint: () => void,
    private readonly options: CheckpointScheduleOptions = DEFAULT_CHECKPOINT_SCHEDULE,
  ) {}

  /** After each commit. */
  committed(): void {
    this.#commits += 1;
    if (this.#commits >= this.options.maxCommits) return this.flush();
    if (this.#timer) {
      this.#timer.refresh();
      return;
    }
    // It does not keep the process alive: closing the database checkpoints what is left.
    this.#timer = setTimeout(() => this.flush(), this.options.idleMs).unref();
  }

  /** Checkpoints what was committed since the last one, if anything. */
  flush(): void {
    this.stop();
    if (this.#commits === 0) return;
    this.#commits = 0;
    this.checkpoint();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
