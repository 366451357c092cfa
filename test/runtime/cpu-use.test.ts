// The node's CPU use: /proc/stat parsed (the machine's line, or a cpuset's CPUs), the busy share
// between two readings, a CPU quota (cgroup v2 or v1) found and measured against, and the sampler's
// last interval (files and clock injected, so no test waits on time). On a cgroup v1 machine, a
// real quota too, on a child process in a cgroup of its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseMountinfo, parseProcCgroup, v1CgroupDir } from '../../src/runtime/node-agent/cgroup-paths.js';
import { CpuUse, allowedCpus, busyFractionBetween, cgroupUsageMicros, cpuQuotaOf, ownCpuQuota, parseCpuList, parseCpuTimes } from '../../src/runtime/node-agent/cpu-use.js';

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
    const cpu = new CpuUse({ read: () => readings.shift() ?? '', cpus: undefined, quota: undefined });
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

  it('leaves out the CPU time of the idle class (waiting pool members), from the CPUs\' share and the quota\'s', () => {
    // One second on 2 CPUs (200 ticks): 180 busy, of which 1.5 CPU-seconds were waiting members'.
    const readings = [stat(100, 0, 900), stat(280, 0, 920)];
    const idle = [0, 1_500_000];
    const cpu = new CpuUse({ read: () => readings.shift() ?? '', cpus: undefined, quota: undefined, idleClassMicros: () => idle.shift() ?? 0 });
    assert.equal(cpu.start(), true);
    try {
      cpu.sample();
      assert.equal(cpu.busyFraction(), 0.15);
    } finally {
      cpu.stop();
    }
    let now = 0;
    const usage = ['usage_usec 0', 'usage_usec 1800000'];
    const quotaReadings = [stat(0, 0, 0), stat(0, 0, 200)];
    const quotaIdle = [0, 1_500_000];
    const quota = new CpuUse({
      read: (path) => (path === '/proc/stat' ? quotaReadings.shift() ?? '' : usage.shift() ?? ''),
      cpus: undefined,
      quota: { cpus: 2, usageFile: '/cg/cpu.stat' },
      nowMs: () => (now += 1000),
      idleClassMicros: () => quotaIdle.shift() ?? 0,
    });
    assert.equal(quota.start(), true);
    try {
      quota.sample();
      assert.equal(quota.busyFraction(), 0.15);
    } finally {
      quota.stop();
    }
  });

  it('says it cannot sample where there is nothing to read', () => {
    const cpu = new CpuUse({
      read: () => {
        throw new Error('ENOENT');
      },
      cpus: undefined,
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
    assert.deepEqual(cpuQuotaOf('/sys/fs/cgroup/kubepods/pod1/agent', files(tree)), { cpus: 1.5, usageFile: '/sys/fs/cgroup/kubepods/pod1/cpu.stat' });
    // A cgroup the cpu controller is not passed down to has no cpu.max: the quota above it still counts.
    assert.deepEqual(cpuQuotaOf('/sys/fs/cgroup/slice/app/worker', files({ '/sys/fs/cgroup/slice/cpu.max': '50000 100000' })), { cpus: 0.5, usageFile: '/sys/fs/cgroup/slice/cpu.stat' });
    assert.equal(cpuQuotaOf('/sys/fs/cgroup/a', files({ '/sys/fs/cgroup/a/cpu.max': 'max 100000\n', '/sys/fs/cgroup/cpu.max': 'max 100000' })), undefined);
    assert.equal(cpuQuotaOf('/sys/fs/cgroup/a', files({})), undefined);
  });

  it('finds the quota of its own cgroup from /proc/self on cgroup v2', () => {
    const mountinfo = '30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n';
    const v2 = files({ '/proc/self/cgroup': '0::/docker/abc\n', '/proc/self/mountinfo': mountinfo, '/sys/fs/cgroup/docker/abc/cpu.max': '200000 100000\n' });
    assert.deepEqual(ownCpuQuota(v2), { cpus: 2, usageFile: '/sys/fs/cgroup/docker/abc/cpu.stat' });
  });

  /** A cgroup v1 machine as Docker and the kubelet mount it: cpu and cpuacct in one hierarchy; the unified one beside it. */
  const V1_SHARED = [
    '32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct',
    '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
    '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
  ].join('\n');

  it('finds the tightest cgroup v1 quota (cpu.cfs_quota_us) from its own cgroup up, counted by cpuacct.usage', () => {
    const procCgroup = '4:memory:/kubepods/pod1/agent\n2:cpu,cpuacct:/kubepods/pod1/agent\n0::/\n';
    const dir = '/sys/fs/cgroup/cpu,cpuacct';
    const tree = {
      '/proc/self/cgroup': procCgroup,
      '/proc/self/mountinfo': V1_SHARED,
      [`${dir}/kubepods/pod1/agent/cpu.cfs_quota_us`]: '-1\n',
      [`${dir}/kubepods/pod1/agent/cpu.cfs_period_us`]: '100000\n',
      [`${dir}/kubepods/pod1/cpu.cfs_quota_us`]: '50000\n',
      [`${dir}/kubepods/pod1/cpu.cfs_period_us`]: '100000\n',
      [`${dir}/kubepods/cpu.cfs_quota_us`]: '800000\n',
      [`${dir}/kubepods/cpu.cfs_period_us`]: '100000\n',
      [`${dir}/cpu.cfs_quota_us`]: '-1\n',
      [`${dir}/cpu.cfs_period_us`]: '100000\n',
    };
    assert.deepEqual(ownCpuQuota(files(tree)), { cpus: 0.5, usageFile: `${dir}/kubepods/pod1/cpuacct.usage` });
    // No level limits it: no quota, and the unified hierarchy beside v1 is not taken for one.
    const unlimited = Object.fromEntries(Object.entries(tree).map(([path, text]) => [path, path.endsWith('cfs_quota_us') ? '-1\n' : text]));
    assert.equal(ownCpuQuota(files(unlimited)), undefined);
  });

  it('counts a v1 quota in the cpuacct hierarchy when cpu has one of its own, and not above what a container mount shows', () => {
    const mounts = [
      '32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu',
      '33 31 0:30 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct',
    ].join('\n');
    const separate = files({
      '/proc/self/cgroup': '2:cpuacct:/svc\n1:cpu:/svc\n',
      '/proc/self/mountinfo': mounts,
      '/sys/fs/cgroup/cpu/svc/cpu.cfs_quota_us': '150000',
      '/sys/fs/cgroup/cpu/svc/cpu.cfs_period_us': '100000',
    });
    assert.deepEqual(ownCpuQuota(separate), { cpus: 1.5, usageFile: '/sys/fs/cgroup/cpuacct/svc/cpuacct.usage' });
    // No cpuacct mounted: the quota's use cannot be counted, so it is not measured against.
    const uncounted = files({
      '/proc/self/cgroup': '1:cpu:/svc\n',
      '/proc/self/mountinfo': '32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu',
      '/sys/fs/cgroup/cpu/svc/cpu.cfs_quota_us': '150000',
      '/sys/fs/cgroup/cpu/svc/cpu.cfs_period_us': '100000',
    });
    assert.equal(ownCpuQuota(uncounted), undefined);
    // In another cgroup of the cpuacct hierarchy than of cpu's: the quota's cgroup there does not count it.
    const elsewhere = (path: string) => (path === '/proc/self/cgroup' ? '2:cpuacct:/other\n1:cpu:/svc\n' : separate(path));
    assert.equal(ownCpuQuota(elsewhere), undefined);
    // A container sees its own cgroup as the mount's root; the walk stops there.
    const container = files({
      '/proc/self/cgroup': '2:cpu,cpuacct:/docker/abc\n',
      '/proc/self/mountinfo': '32 31 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '200000',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000',
    });
    assert.deepEqual(ownCpuQuota(container), { cpus: 2, usageFile: '/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage' });
  });

  it('reads kernel CPU lists, and the CPUs this process may run on', () => {
    assert.deepEqual([...parseCpuList('0-3,8,10-11')!], [0, 1, 2, 3, 8, 10, 11]);
    assert.deepEqual([...parseCpuList('5\n')!], [5]);
    for (const bad of ['', '3-1', 'a', '0-', '1,,2']) assert.equal(parseCpuList(bad), undefined, bad);
    assert.deepEqual([...allowedCpus('Name:\tnode\nCpus_allowed:\t5\nCpus_allowed_list:\t0,2\nMems_allowed_list:\t0\n')!], [0, 2]);
    assert.equal(allowedCpus('Name:\tnode\n'), undefined);
  });

  it('counts only the CPUs of its cpuset, busy while the machine idles', () => {
    const statOf = (cpu0: { busy: number; idle: number }, cpu1: { busy: number; idle: number }) =>
      `cpu  ${cpu0.busy + cpu1.busy} 0 0 ${cpu0.idle + cpu1.idle} 0 0 0 0 0 0\n` +
      `cpu0 ${cpu0.busy} 0 0 ${cpu0.idle} 0 0 0 0 0 0\ncpu1 ${cpu1.busy} 0 0 ${cpu1.idle} 0 0 0 0 0 0\nintr 1\n`;
    assert.deepEqual(parseCpuTimes(statOf({ busy: 30, idle: 100 }, { busy: 70, idle: 100 }), new Set([1])), { busy: 70, total: 170 });
    assert.equal(parseCpuTimes(statOf({ busy: 30, idle: 100 }, { busy: 70, idle: 100 }), new Set([7])), undefined, 'none of its CPUs listed');
    // CPU 1 was busy all the second, CPU 0 idle: the machine looks half busy, the cpuset full.
    const stats = [statOf({ busy: 0, idle: 0 }, { busy: 0, idle: 0 }), statOf({ busy: 0, idle: 100 }, { busy: 100, idle: 0 })];
    assert.equal(shareOfOneInterval(new CpuUse({ read: () => stats.shift()!, cpus: new Set([1]), quota: undefined })), 1);
  });

  it('reads a cgroup\'s CPU time in microseconds', () => {
    assert.equal(cgroupUsageMicros('/sys/fs/cgroup/c/cpu.stat', 'usage_usec 123456\nuser_usec 100000\nsystem_usec 23456\n'), 123456);
    assert.equal(cgroupUsageMicros('/sys/fs/cgroup/c/cpu.stat', 'user_usec 1\n'), undefined);
    // v1 counts nanoseconds.
    assert.equal(cgroupUsageMicros('/sys/fs/cgroup/cpuacct/c/cpuacct.usage', '123456789\n'), 123456.789);
    assert.equal(cgroupUsageMicros('/sys/fs/cgroup/cpuacct/c/cpuacct.usage', 'usage_usec 1\n'), undefined);
  });

  it('takes the quota\'s busy share when it is higher than the machine\'s', () => {
    // The machine idles; the container used 1.9 of its 2 CPUs' second.
    const stats = [stat(100, 0, 900), stat(100, 0, 1100)];
    const usage = ['usage_usec 1000000\n', 'usage_usec 2900000\n'];
    const clock = [10_000, 11_000];
    const cpu = new CpuUse({
      read: (path) => (path === '/proc/stat' ? stats.shift()! : path === '/sys/fs/cgroup/c/cpu.stat' ? usage.shift()! : files({})(path)),
      cpus: undefined,
      quota: { cpus: 2, usageFile: '/sys/fs/cgroup/c/cpu.stat' },
      nowMs: () => clock.shift()!,
    });
    assert.equal(shareOfOneInterval(cpu), 0.95);
  });

  it('reads this machine\'s /proc/stat', function () {
    if (!existsSync('/proc/stat')) this.skip();
    const share = shareOfOneInterval(new CpuUse());
    assert.ok(share === undefined || (share >= 0 && share <= 1), String(share));
  });

  it('reads the CPUs a process may run on as the kernel limits them (taskset, as a cpuset would)', function () {
    const cpus = availableParallelism();
    if (cpus < 2) {
      console.warn('    SKIPPED the real CPU affinity: this machine has one CPU, so none can be left out');
      this.skip();
    }
    const last = cpus - 1;
    const child = `
      import { allowedCpus } from ${JSON.stringify(new URL('../../src/runtime/node-agent/cpu-use.js', import.meta.url).href)};
      import { readFileSync } from 'node:fs';
      console.log(JSON.stringify([...allowedCpus(readFileSync('/proc/self/status', 'utf8'))]));`;
    const run = spawnSync('taskset', ['-c', String(last), process.execPath, '--input-type=module', '-e', child], { encoding: 'utf8', timeout: 60_000 });
    if (run.error) {
      console.warn(`    SKIPPED the real CPU affinity: taskset cannot run here (${run.error.message})`);
      this.skip();
    }
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), [last]);
  });

  describe('a real cgroup v1 quota', () => {
    /** The cpu and cpuacct folders this test makes its cgroup in, or why it cannot. */
    let parents: { cpu: string; cpuacct: string } | string;
    before(() => {
      try {
        const memberships = parseProcCgroup(readFileSync('/proc/self/cgroup', 'utf8'));
        const mounts = parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'));
        const cpu = v1CgroupDir(memberships, mounts, 'cpu');
        const cpuacct = v1CgroupDir(memberships, mounts, 'cpuacct');
        if (!cpu || !cpuacct) parents = 'this machine has no cgroup v1 cpu and cpuacct hierarchies (cgroup v2: the quota is read the same way as in the tests above)';
        else if (!isWritable(cpu.dir) || !isWritable(cpuacct.dir)) parents = `${cpu.dir} is not writable by this user`;
        else parents = { cpu: cpu.dir, cpuacct: cpuacct.dir };
      } catch (err) {
        parents = `cgroups unreadable: ${(err as Error).message}`;
      }
    });

    it('finds a process\'s quota of half a CPU and counts the CPU time it spends against it', function () {
      if (typeof parents === 'string') {
        console.warn(`    SKIPPED the real cgroup v1 quota: ${parents}`);
        this.skip();
      }
      const name = `browserfn-cpu-test-${process.pid}-${randomBytes(4).toString('hex')}`;
      const cpuDir = join(parents.cpu, name);
      const cpuacctDir = join(parents.cpuacct, name);
      mkdirSync(cpuDir);
      mkdirSync(cpuacctDir);
      try {
        writeFileSync(join(cpuDir, 'cpu.cfs_period_us'), '100000');
        writeFileSync(join(cpuDir, 'cpu.cfs_quota_us'), '50000');
        // The child enters both cgroups before Node starts, finds its quota from /proc/self, then
        // spins until the quota's counter shows 300 ms of CPU used, and says what it measured.
        const child = `
          import { ownCpuQuota, cgroupUsageMicros } from ${JSON.stringify(new URL('../../src/runtime/node-agent/cpu-use.js', import.meta.url).href)};
          import { readFileSync } from 'node:fs';
          const quota = ownCpuQuota();
          const used = () => cgroupUsageMicros(quota.usageFile, readFileSync(quota.usageFile, 'utf8'));
          const [startUsed, startMs] = [used(), performance.now()];
          while (used() - startUsed < 300000) for (let i = 0; i < 1e5; i += 1);
          const share = (used() - startUsed) / ((performance.now() - startMs) * 1000 * quota.cpus);
          console.log(JSON.stringify({ quota, share }));`;
        const run = spawnSync('/bin/sh', ['-c', 'echo $$ > "$1" && echo $$ > "$2" && exec "$3" --input-type=module -e "$4"', 'sh', join(cpuDir, 'cgroup.procs'), join(cpuacctDir, 'cgroup.procs'), process.execPath, child], {
          encoding: 'utf8',
          timeout: 60_000,
        });
        assert.equal(run.status, 0, run.stderr);
        const { quota, share } = JSON.parse(run.stdout) as { quota: { cpus: number; usageFile: string }; share: number };
        assert.deepEqual(quota, { cpus: 0.5, usageFile: join(cpuacctDir, 'cpuacct.usage') });
        // Held to half a CPU, a spinning process uses about all of its quota (at most a period's
        // slack over it), less only when the machine has no half CPU to give it. Measured against
        // all of this 2-CPU machine, it would look a quarter busy at most.
        assert.ok(share > 0.45 && share < 1.3, `the quota's busy share while spinning was ${share}`);
      } finally {
        rmdirSync(cpuDir);
        rmdirSync(cpuacctDir);
      }
    });
  });
});

/** Starts the sampler (which must find /proc/stat), takes one more reading, and gives that interval's busy share. */
function shareOfOneInterval(cpu: CpuUse): number | undefined {
  assert.equal(cpu.start(), true);
  try {
    cpu.sample();
    return cpu.busyFraction();
  } finally {
    cpu.stop();
  }
}

function isWritable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
