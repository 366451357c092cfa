// Each pod's CPU shared as a kubelet shares it (docs/pod-memory.md, "CPU"): the weight and quota a
// pod spec asks for, how a pod's first process enters its cgroups, and with the real `serve` stack
// (Chromium, warm pools on): a project's waiting pool members whose preloaded code spins run in the
// idle class and do not keep another project's pool from filling (the pools' CPU gate leaves their
// time out), and a claimed member gets its pod's weight back for its invocation.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Kinds } from '../../src/cluster/objects.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { cpuMillis } from '../../src/schemas/quantities.js';
import { Labels, type BrowserPoolObject } from '../../src/schemas/resources.js';
import { enterCgroups } from '../../src/runtime/node-agent/cgroup-entry.js';
import { isWaitingMember, podCpuShare, sharesToWeight } from '../../src/runtime/node-agent/pod-cpu.js';
import { cpuCgroupsHere, podCpuCgroup, schedulingOf, type CpuCgroupsHere } from '../support/cpu-cgroups.js';
import { commandsIn } from '../support/memory-cgroups.js';
import { startHoldServer, type HoldServer } from '../support/hold-server.js';
import { writeProject } from '../support/projects.js';
import { publish, waitInvocation } from '../support/publish.js';
import { startTestService, waitFor, type TestService } from '../support/service.js';

const podWith = (...containers: { requests?: Record<string, string>; limits?: Record<string, string> }[]): PodObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers: containers.map((resources, i) => ({ name: `c${i}`, image: 'x', resources })) },
});

describe('pod CPU: the share a pod spec asks for', () => {
  it('reads CPU quantities in thousandths of a CPU', () => {
    assert.deepEqual(['250m', '1', '0.5', '1.5', '2k'].map(cpuMillis), [250, 1000, 500, 1500, 2_000_000]);
    assert.throws(() => cpuMillis('one'), /not a Kubernetes quantity/);
  });

  it('weighs a pod by the sum of its requests, a container with only a limit requesting its limit, as the kubelet does', () => {
    assert.equal(podCpuShare(podWith({ requests: { cpu: '250m' } })).shares, 256);
    assert.equal(podCpuShare(podWith({ requests: { cpu: '100m' } }, { requests: { cpu: '250m' } })).shares, 358);
    assert.equal(podCpuShare(podWith({ limits: { cpu: '2' } })).shares, 2048);
    assert.equal(podCpuShare(podWith({})).shares, 2, 'no request: the least weight');
    assert.equal(podCpuShare(podWith({ requests: { cpu: '1000' } })).shares, 262_144, 'at most the kernel\'s largest');
  });

  it('gives a pod a quota only when every container has a CPU limit', () => {
    assert.equal(podCpuShare(podWith({ requests: { cpu: '250m' }, limits: { cpu: '500m' } })).quotaMicros, 50_000);
    assert.equal(podCpuShare(podWith({ limits: { cpu: '1' } }, { limits: { cpu: '1' } })).quotaMicros, 200_000);
    assert.equal(podCpuShare(podWith({ limits: { cpu: '1' } }, { requests: { cpu: '1' } })).quotaMicros, undefined);
    assert.equal(podCpuShare(podWith({ limits: { cpu: '1m' } })).quotaMicros, 1000, 'at least the kernel\'s smallest');
  });

  it('turns shares into cgroup v2 weights over the same range', () => {
    assert.deepEqual([2, 256, 1024, 262_144].map(sharesToWeight), [1, 10, 39, 10_000]);
  });

  it('counts as waiting only a pool member no invocation has claimed', () => {
    const member = podWith({});
    member.metadata.labels = { [Labels.pool]: 'default' };
    assert.equal(isWaitingMember(member), true);
    member.metadata.labels[Labels.invocationName] = 'inv-1';
    assert.equal(isWaitingMember(member), false);
    assert.equal(isWaitingMember(podWith({})), false, 'a cold pod');
  });

  it('has a pod\'s first process write itself into each cgroup, then run its command as given', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cgroup-entry-'));
    const files = ['memory', 'cpu', 'cpuacct'].map((name) => join(dir, name));
    for (const file of files) writeFileSync(file, '');
    // Written twice (v2 has one folder for both): entered once.
    const command = enterCgroups([...files, files[1]], ['/bin/sh', '-c', 'echo "$@"', 'sh', 'a b', 'c']);
    const ran = spawnSync(command[0], command.slice(1), { encoding: 'utf8' });
    assert.equal(ran.status, 0, ran.stderr);
    assert.equal(ran.stdout, 'a b c\n');
    for (const file of files) assert.equal(readFileSync(file, 'utf8'), '0\n', file);
    assert.deepEqual(enterCgroups([], ['true']), ['true']);
  });
});

// Its top level, in a pod, keeps the process busy for as long as it lives: a member that loaded it ahead spins while it waits.
const SPINS_WHILE_WAITING = (holdUrl: string) => `
import { defineFn } from 'browserfn';
if (process.env.BB_FUNCTIONS_PHASE === 'runtime') {
  setInterval(() => { const end = Date.now() + 100; while (Date.now() < end); }, 0);
}
defineFn('held', async () => (await fetch(${JSON.stringify(holdUrl)})).text());
`;

const TRIVIAL = `
import { defineFn } from 'browserfn';
defineFn('trivial', async () => 'done');
`;

describe('pod CPU: a cpu cgroup per pod (embedded serve, warm pools)', function () {
  this.timeout(600_000);
  let here: CpuCgroupsHere;
  let svc: TestService;
  let hold: HoldServer;

  before(async function () {
    const found = cpuCgroupsHere();
    if ('reason' in found) {
      console.warn(`    SKIPPED pod CPU tests: this machine gives no cpu cgroup to pods (${found.reason})`);
      this.skip();
    }
    here = found as CpuCgroupsHere;
    hold = await startHoldServer();
    svc = await startTestService({ BROWSERFN_WARM_POOL_SIZE: '2', BROWSERFN_WARM_POOL_MAX: '2' });
  });
  after(async () => {
    await svc?.stop();
    await hold?.close();
  });

  const pods = () => svc.service.cluster.resource<PodObject>(Kinds.Pod);
  const readyMembers = (namespace: string, count: number) =>
    waitFor(`${count} ready member(s) of ${namespace}'s default pool`, async () => {
      const { items } = await pods().list(namespace, { labelSelector: `${Labels.pool}=default,!${Labels.invocationName}` });
      const ready = items.filter((pod) => pod.metadata.annotations?.['browserfn.dev/ready-at'] && !pod.metadata.deletionTimestamp);
      return ready.length >= count ? ready : undefined;
    }, 180_000, 200);

  it('runs a project\'s waiting members in the idle class, and another project\'s pool fills while they spin', async () => {
    const spinning = await publish(svc, writeProject({ 'index.ts': SPINS_WHILE_WAITING(hold.url) }));
    assert.equal(spinning.status, 'COMPLETED', JSON.stringify(spinning.cause));
    const members = await readyMembers('default', 2);
    for (const member of members) {
      const cgroup = podCpuCgroup(here, 'default', member.metadata.name);
      assert.ok(cgroup, `${member.metadata.name} has a cpu cgroup`);
      const commands = commandsIn(cgroup);
      for (const part of ['chromium', 'pod-agent', 'code-loader']) assert.ok(commands.some((c) => c.includes(part)), `${part} runs in the member's cpu cgroup: ${commands.join('\n')}`);
      const nodeShares = availableParallelism() * 1024;
      assert.deepEqual(schedulingOf(here, dirname(cgroup)), { idle: false, weight: here.version === 1 ? nodeShares : sharesToWeight(nodeShares) }, 'all pods together weigh as the node\'s CPUs');
      const scheduling = schedulingOf(here, cgroup);
      assert.ok(scheduling.idle || scheduling.weight === (here.version === 1 ? 2 : 1), `a waiting member takes only CPU nothing else wants: ${JSON.stringify(scheduling)}`);
    }
    // Both members' code spins on this machine's cores; the other project's pool fills all the same.
    const other = await publish(svc, writeProject({ 'index.ts': TRIVIAL }), 'index.ts', { 'x-svc-api-key': 'other-key' });
    assert.equal(other.status, 'COMPLETED', JSON.stringify(other.cause));
    const otherPool = () => svc.service.cluster.resource<BrowserPoolObject>(Kinds.BrowserPool).get('other', 'default');
    await readyMembers('other', 2).catch(async (err: Error) => {
      // Held back, the pool says why (before: CpuBusy).
      throw new Error(`${err.message}; the pool's status: ${JSON.stringify((await otherPool())?.status)}`);
    });
    // The pool's status follows its members' on the controller's next pass.
    const readyReason = async () => (await otherPool())?.status?.conditions?.find((c) => c.type === 'Ready')?.reason;
    await waitFor('the other pool to say Ready', async () => ((await readyReason()) === 'Ready' ? true : undefined), 30_000, 100).catch(() => undefined);
    assert.equal(await readyReason(), 'Ready', JSON.stringify((await otherPool())?.status));
  });

  it('gives a claimed member its pod\'s weight for the invocation it serves', async () => {
    const [fn] = (await svc.request('GET', '/v1/functions')).body.data as { id: string; name: string }[];
    const created = await svc.request('POST', `/v1/functions/${fn.id}/invoke`, {});
    assert.equal(created.status, 202, JSON.stringify(created.body));
    await hold.arrived(1);
    const invocation = created.body.id as string;
    const pod = await waitFor('the invocation\'s pod', async () => (await pods().list('default', { labelSelector: `${Labels.invocationName}=${invocation}` })).items[0]);
    assert.equal(pod.metadata.labels?.[Labels.pool], 'default', 'it runs on a member');
    const milli = pod.spec.containers.reduce((sum, c) => sum + cpuMillis(c.resources?.requests?.cpu ?? '0'), 0);
    const shares = Math.floor((milli * 1024) / 1000);
    const cgroup = podCpuCgroup(here, 'default', pod.metadata.name)!;
    const scheduling = await waitFor('the claimed member out of the idle class', async () => {
      const now = schedulingOf(here, cgroup);
      return now.idle ? undefined : now;
    });
    assert.deepEqual(scheduling, { idle: false, weight: here.version === 1 ? shares : sharesToWeight(shares) });
    hold.release();
    const done = await waitInvocation(svc, invocation);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done.cause));
    assert.equal(done.results, 'released');
  });
});
