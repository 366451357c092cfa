// The node's CPU use, read from /proc/stat: the machine-wide line parsed, the busy share between two
// readings, and the sampler's last interval (readings injected, so no test waits on the clock).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { CpuUse, busyFractionBetween, parseCpuTimes } from '../../src/runtime/node-agent/cpu-use.js';

const stat = (user: number, system: number, idle: number, iowait = 0, steal = 0) =>
  `cpu  ${user} 0 ${system} ${idle} ${iowait} 0 0 ${steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 12345\n`;

describe('node CPU use', () => {
  it('counts everything but idle and I/O wait as busy, over all CPUs', () => {
    assert.deepEqual(parseCpuTimes(stat(100, 50, 800, 40, 10)), { busy: 160, total: 1000 });
  });

  it('takes the busy share between two readings, bounded to 0..1, and none when no time passed', () => {
    const earlier = parseCpuTimes(stat(100, 50, 800))!;
    assert.equal(busyFractionBetween(earlier, parseCpuTimes(stat(190, 50, 810))!), 0.9);
    assert.equal(busyFractionBetween(earlier, parseCpuTimes(stat(100, 50, 900))!), 0);
    assert.equal(busyFractionBetween(earlier, earlier), undefined);
  });

  it('does not take what is not /proc/stat for CPU times', () => {
    for (const text of ['', 'intr 1 2 3', 'cpu 1 2', 'cpu a b c d e', 'cpu0 1 2 3 4 5']) assert.equal(parseCpuTimes(text), undefined, text);
  });

  it('keeps the share of its last interval, and the one before when a reading fails', () => {
    const readings = [stat(100, 0, 900), stat(150, 0, 950), stat(150, 0, 1050), 'unreadable'];
    const cpu = new CpuUse(() => readings.shift() ?? '');
    assert.equal(cpu.start(), true);
    try {
      assert.equal(cpu.busyFraction(), undefined, 'no interval yet');
      cpu.sample();
      assert.equal(cpu.busyFraction(), 0.5);
      cpu.sample();
      assert.equal(cpu.busyFraction(), 0);
      cpu.sample();
      assert.equal(cpu.busyFraction(), 0);
    } finally {
      cpu.stop();
    }
  });

  it('says it cannot sample where there is nothing to read', () => {
    const cpu = new CpuUse(() => {
      throw new Error('ENOENT');
    });
    assert.equal(cpu.start(), false);
    assert.equal(cpu.busyFraction(), undefined);
  });

  it('reads this machine\'s /proc/stat', function () {
    if (!existsSync('/proc/stat')) this.skip();
    const cpu = new CpuUse();
    assert.equal(cpu.start(), true);
    try {
      cpu.sample();
      const share = cpu.busyFraction();
      assert.ok(share === undefined || (share >= 0 && share <= 1), String(share));
    } finally {
      cpu.stop();
    }
  });
});
