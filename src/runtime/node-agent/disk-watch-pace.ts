// How soon the disk watch looks again: as soon as a watched folder could pass its limit, at the
// pace it was seen growing or at a fast disk's, whichever is quicker. A fixed 2 s let a pod writing
// at 600 MB/s reach 3 GB against a 2 GiB limit before it was evicted; looking sooner as a folder
// fills bounds that to what the disk writes between two close looks. Never so often that the walks
// take more than a third of the time (a pod holding many files near its limit would keep the
// worker busy), never later than the kubelet-like 2 s.

/** One folder's measurement, and the one before it when there was one. */
export interface FolderReading {
  bytes: number;
  limitBytes: number;
  atMs: number;
  previous?: { bytes: number; atMs: number };
}

/** The slowest and quickest the watch looks. */
export const MAX_ROUND_DELAY_MS = 2000;
export const MIN_ROUND_DELAY_MS = 100;
/** A fast local SSD's sequential writes (1 GB/s): how fast a folder is assumed it may grow. */
export const ASSUMED_WRITE_BYTES_PER_MS = 1_000_000;
/** The walks' share of the time at most: a round waits twice as long as the last one took. */
const WAIT_PER_MEASURE_MS = 2;

/** Until the next round, given every watched folder's reading and how long the last round's walks took. */
export function nextRoundDelayMs(readings: FolderReading[], measureMs: number): number {
  let delay = MAX_ROUND_DELAY_MS;
  for (const { bytes, limitBytes, atMs, previous } of readings) {
    const seenGrowth = previous && atMs > previous.atMs ? (bytes - previous.bytes) / (atMs - previous.atMs) : 0;
    const headroom = Math.max(limitBytes - bytes, 0);
    delay = Math.min(delay, headroom / Math.max(seenGrowth, ASSUMED_WRITE_BYTES_PER_MS));
  }
  return Math.min(MAX_ROUND_DELAY_MS, Math.max(delay, MIN_ROUND_DELAY_MS, measureMs * WAIT_PER_MEASURE_MS));
}
