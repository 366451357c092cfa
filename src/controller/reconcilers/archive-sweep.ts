// Deletes archived records past their retention, every sweep interval: everything of an
// invocation (its record, session pointer and session recording) and of a build. Reads stop answering at the exact
// end of retention on their own; the sweep frees the space.
import type { Logger } from '../../config/logger.js';
import type { Archive } from '../../functions/archived/archive.js';
import { INVOCATIONS_PREFIX, SESSIONS_PREFIX } from '../../functions/archived/invocation-record.js';
import { BUILDS_PREFIX } from '../../functions/archived/build-record.js';
import { RECORDINGS_PREFIX } from '../../functions/recordings/keys.js';
import type { Reconciler, Result } from '../runtime/controller.js';
import type { Clock } from '../runtime/clock.js';
import { expiredArchiveKeys } from '../policies/retention.js';

export const ARCHIVE_SWEEP_KEY = 'archive-sweep';

export interface ArchiveSweepDeps {
  archive: Archive;
  sweepIntervalMs: number;
  clock: Clock;
  log: Logger;
  /** Called once per archived object deleted (a metric). */
  onDeleted?: () => void;
}

export class ArchiveSweepReconciler implements Reconciler {
  constructor(private readonly deps: ArchiveSweepDeps) {}

  async reconcile(): Promise<Result> {
    const { archive, log } = this.deps;
    let deleted = 0;
    for (const prefix of [INVOCATIONS_PREFIX, SESSIONS_PREFIX, RECORDINGS_PREFIX, BUILDS_PREFIX]) {
      for (const key of expiredArchiveKeys(await archive.store.list(prefix), this.deps.clock(), archive.retentionMs)) {
        await archive.store.delete(key);
        deleted++;
        this.deps.onDeleted?.();
      }
    }
    if (deleted > 0) log.info({ deleted, store: archive.store.backend }, 'deleted archived records past their retention');
    return { requeueAfterMs: this.deps.sweepIntervalMs };
  }
}
