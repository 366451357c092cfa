// The leftover-process check sees a process by its working directory alone (as a pod agent, whose
// command line does not name its pod folder), fails naming it, and kills it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertNoProcessesUnder, processesUnder } from './processes.js';

describe('leftover-process check', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'browserfn-leftover-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a process by its cwd, fails naming it, and kills it', async () => {
    const child = spawn('sleep', ['600'], { cwd: dir, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    assert.ok(!dir.includes('sleep') && child.pid);
    assert.deepEqual(processesUnder(dir).map((p) => [p.pid, p.cwd]), [[child.pid, dir]]);
    await assert.rejects(assertNoProcessesUnder(dir, 'the test'), (err: Error) => err.message.includes(`${child.pid} cwd=${dir}`) && err.message.includes('outlived the test'));
    await exited;
    await assertNoProcessesUnder(dir, 'the kill');
  });

  it('finds a process whose command line names the folder, and not one under a sibling folder', async () => {
    const sibling = `${dir}-sibling`;
    const named = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600_000)', dir], { stdio: 'ignore' });
    const other = spawn('sleep', ['600'], { cwd: tmpdir(), stdio: 'ignore' });
    try {
      assert.deepEqual(processesUnder(dir).map((p) => p.pid), [named.pid]);
      assert.deepEqual(processesUnder(sibling), []);
    } finally {
      named.kill('SIGKILL');
      other.kill('SIGKILL');
    }
  });
});
