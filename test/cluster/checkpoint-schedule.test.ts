// The embedded store's checkpoints run when writes pause, not inside the commit that happens to fill
// the log; inside a commit only once the log has grown to its bound without a pause.
import assert from 'node:assert/strict';
import { CheckpointSchedule } from '../../src/cluster/embedded/checkpoint-schedule.js';

describe('the embedded store\'s checkpoint schedule', () => {
  it('checkpoints once writes pause, once for all the commits before the pause', async () => {
    let checkpoints = 0;
    let checkpointed!: () => void;
    const ran = new Promise<void>((resolve) => (checkpointed = resolve));
    const schedule = new CheckpointSchedule(() => {
      checkpoints += 1;
      checkpointed();
    }, { idleMs: 20, maxCommits: 1000 });
    for (let i = 0; i < 10; i += 1) schedule.committed();
    assert.equal(checkpoints, 0, 'no commit ran a checkpoint');
    await ran;
    assert.equal(checkpoints, 1);
    schedule.flush();
    assert.equal(checkpoints, 1, 'nothing committed since: nothing to checkpoint');
  });

  it('checkpoints inside the commit that reaches the bound, and counts afresh after it', () => {
    let checkpoints = 0;
    const schedule = new CheckpointSchedule(() => (checkpoints += 1), { idleMs: 60_000, maxCommits: 3 });
    schedule.committed();
    schedule.committed();
    assert.equal(checkpoints, 0);
    schedule.committed();
    assert.equal(checkpoints, 1);
    schedule.committed();
    schedule.committed();
    assert.equal(checkpoints, 1);
    schedule.stop();
  });
});
