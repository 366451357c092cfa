// The disk watch's pace (disk-watch-pace.ts): it looks again as soon as a folder could pass its
// limit, at the pace the folder was seen growing or a fast disk's, within 100 ms and 2 s, and never
// spends more than a third of the time walking folders.
import assert from 'node:assert/strict';
import { ASSUMED_WRITE_BYTES_PER_MS, MAX_ROUND_DELAY_MS, MIN_ROUND_DELAY_MS, nextRoundDelayMs } from '../../src/runtime/node-agent/disk-watch-pace.js';

const MB = 1_000_000;
const GiB = 1024 ** 3;

describe('disk watch pace', () => {
  it('waits the longest (2 s) with no folder, or folders a fast disk could not fill by then', () => {
    assert.equal(nextRoundDelayMs([], 1), MAX_ROUND_DELAY_MS);
    assert.equal(nextRoundDelayMs([{ bytes: 0, limitBytes: 4 * GiB, atMs: 0 }], 1), MAX_ROUND_DELAY_MS);
  });

  it('looks sooner as a folder fills: when a fast disk could fill what is left', () => {
    const left = 500 * MB;
    assert.equal(nextRoundDelayMs([{ bytes: 2 * GiB - left, limitBytes: 2 * GiB, atMs: 0 }], 1), left / ASSUMED_WRITE_BYTES_PER_MS);
  });

  it('looks sooner still for a folder seen growing faster than a fast disk, by the pace it grew at', () => {
    // 3 GB/s between the two looks; 600 MB left.
    const reading = { bytes: 2 * GiB - 600 * MB, limitBytes: 2 * GiB, atMs: 1000, previous: { bytes: 2 * GiB - 1800 * MB, atMs: 600 } };
    assert.equal(nextRoundDelayMs([reading], 1), 200);
  });

  it('takes the soonest any folder of any pod needs', () => {
    const roomy = { bytes: 0, limitBytes: 2 * GiB, atMs: 0 };
    const nearlyFull = { bytes: 2 * GiB - 300 * MB, limitBytes: 2 * GiB, atMs: 0 };
    assert.equal(nextRoundDelayMs([roomy, nearlyFull, roomy], 1), 300);
  });

  it('never looks sooner than 100 ms, even for a full folder or one that shrank', () => {
    assert.equal(nextRoundDelayMs([{ bytes: 2 * GiB, limitBytes: 2 * GiB, atMs: 0 }], 1), MIN_ROUND_DELAY_MS);
    const shrank = { bytes: 2 * GiB - 50 * MB, limitBytes: 2 * GiB, atMs: 1000, previous: { bytes: 2 * GiB, atMs: 0 } };
    assert.equal(nextRoundDelayMs([shrank], 1), MIN_ROUND_DELAY_MS);
  });

  it('waits twice as long as the last walks took, so walking never takes more than a third of the time', () => {
    const nearlyFull = { bytes: 2 * GiB - 10 * MB, limitBytes: 2 * GiB, atMs: 0 };
    assert.equal(nextRoundDelayMs([nearlyFull], 400), 800);
    assert.equal(nextRoundDelayMs([nearlyFull], 5000), MAX_ROUND_DELAY_MS);
  });
});
