// The node's CPU use: /proc/stat's machine-wide line parsed, the busy share between two readings, a
// cgroup v2 CPU quota found and measured against, and the sampler's last interval (files and clock
// injected, so no test waits on time).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { CpuUse, busyFractionBetween, cgroupUsageMicros, cpuQuotaOf, ownCpuQuota, parseCpuTimes } from '../../src/runtime/node-agent/cpu-use.js';

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
    const cpu = new CpuUse({ read: () => readings.shift() ?? '', quota: undefined });
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
    const cpu = new CpuUse({
      read: () => {
        throw new Error('ENOENT');
      },
      quota: undefined,
    });
    assert.equal(cpu.start(), false);
    assert.equal(cpu.busyFraction(), undefined);
  });

  /** A fake file tree: reading anything else fails as a missing file does. */
  const files = (tree: Record<string, string>) => (path: string) => {
    if (!(path in tree)) throw new Error(`ENOENT: ${path}`);
    return tree[path];
  };

  it('finds the tightest cgroup v2 CPU quota from its own cgroup up, and none where every level says max', () => {
    const tree = {
      '/sys/fs/cgroup/kubepods/pod1/agent/cpu.max': 'max 100000\n',
      '/sys/fs/cgroup/kubepods/pod1/cpu.max': '150000 100000\n',
      '/sys/fs/cgroup/kubepods/cpu.max': '400000 100000\n',
    };
    assert.deepEqual(cpuQuotaOf('/sys/fs/cgroup/kubepods/pod1/agent', files(tree)), { cpus: 1.5, dir: '/sys/fs/cgroup/kubepods/pod1' });
    // A cgroup the cpu controller is not passed down to has no cpu.max: the quota above it still counts.
    assert.deepEqual(cpuQuotaOf('/sys/fs/cgroup/slice/app/worker', files({ '/sys/fs/cgroup/slice/cpu.max': '50000 100000' })), { cpus: 0.5, dir: '/sys/fs/cgroup/slice' });
    assert.equal(cpuQuotaOf('/sys/fs/cgroup/a', files({ '/sys/fs/cgroup/a/cpu.max': 'max 100000\n', '/sys/fs/cgroup/cpu.max': 'max 100000' })), undefined);
    assert.equal(cpuQuotaOf('/sys/fs/cgroup/a', files({})), undefined);
  });

  it('finds the quota of its own cgroup from /proc/self, and none on a cgroup v1 host', () => {
    const mountinfo = '30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n';
    const v2 = files({ '/proc/self/cgroup': '0::/docker/abc\n', '/proc/self/mountinfo': mountinfo, '/sys/fs/cgroup/docker/abc/cpu.max': '200000 100000\n' });
    assert.deepEqual(ownCpuQuota(v2), { cpus: 2, dir: '/sys/fs/cgroup/docker/abc' });
    const v1 = files({ '/proc/self/cgroup': '4:memory:/x\n1:cpu:/\n', '/proc/self/mountinfo': '32 31 0:29 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n' });
    assert.equal(ownCpuQuota(v1), undefined);
  });

  it('reads a cgroup\'s CPU time in microseconds', () => {
    assert.equal(cgroupUsageMicros('usage_usec 123456\nuser_usec 100000\nsystem_usec 23456\n'), 123456);
    assert.equal(cgroupUsageMicros('user_usec 1\n'), undefined);
  });

  it('takes the quota\'s busy share when it is higher than the machine\'s', () => {
    // The machine idles; the container used 1.9 of its 2 CPUs' second.
    const stats = [stat(100, 0, 900), stat(100, 0, 1100)];
    const usage = ['usage_usec 1000000\n', 'usage_usec 2900000\n'];
    const clock = [10_000, 11_000];
    const cpu = new CpuUse({
      read: (path) => (path === '/proc/stat' ? stats.shift()! : path === '/sys/fs/cgroup/c/cpu.stat' ? usage.shift()! : files({})(path)),
      quota: { cpus: 2, dir: '/sys/fs/cgroup/c' },
      nowMs: () => clock.shift()!,
    });
    assert.equal(cpu.start(), true);
    try {
      cpu.sample();
      assert.equal(cpu.busyFraction(), 0.95);
    } finally {
      cpu.stop();
    }
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
