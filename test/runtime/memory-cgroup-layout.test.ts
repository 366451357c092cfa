// Where a node agent finds its memory cgroup, from /proc/self/cgroup and /proc/self/mountinfo as
// machines show them: cgroup v1 (also beside v2, as here), v2 only, a container's own subtree.
import assert from 'node:assert/strict';
import { memoryCgroupLayout } from '../../src/runtime/node-agent/memory-cgroups.js';

const V1_MOUNTS = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');
const V2_MOUNTS = '30 23 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot';

describe('memory cgroup layout', () => {
  it('prefers the v1 memory hierarchy on a hybrid machine', () => {
    const procCgroup = '9:name=systemd:/\n4:memory:/process_api/abc\n1:cpu:/\n0::/\n';
    assert.deepEqual(memoryCgroupLayout(procCgroup, V1_MOUNTS), { version: 1, own: '/sys/fs/cgroup/memory/process_api/abc' });
  });

  it('uses the unified hierarchy when there is no v1 memory controller', () => {
    assert.deepEqual(memoryCgroupLayout('0::/system.slice/browserfn.service\n', V2_MOUNTS), { version: 2, own: '/sys/fs/cgroup/system.slice/browserfn.service' });
  });

  it('maps the path through a mount that shows only a subtree (a container\'s cgroup namespace)', () => {
    const mounts = '30 23 0:27 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw';
    assert.deepEqual(memoryCgroupLayout('0::/kubepods/pod1/agent\n', mounts), { version: 2, own: '/sys/fs/cgroup/agent' });
  });

  it('says why when there is no memory cgroup', () => {
    assert.match(String(memoryCgroupLayout('4:memory:/x\n', V2_MOUNTS)), /memory cgroup \(v1\) is not mounted/);
    assert.match(String(memoryCgroupLayout('1:cpu:/\n', '32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu')), /neither cgroup v1 with the memory controller nor cgroup v2/);
  });
});
