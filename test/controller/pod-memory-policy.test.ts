// Browser pods' memory (docs/pod-memory.md), decided without a cluster: the limit and /dev/shm the
// templates give a pod, what the node agent reads back from a spec, and an OOMKilled pod turned
// into the invocation's cause.
import assert from 'node:assert/strict';
import { AGENT_EXIT_WAIT_MS, nextInvocationStep } from '../../src/controller/policies/invocation.js';
import { browserPod, browserPodFor } from '../../src/controller/pods/templates.js';
import { isShmVolume, outOfMemoryStatus, podMemoryLimitBytes, podShmBytes } from '../../src/runtime/node-agent/pod-memory.js';
import { loadSettings } from '../../src/config/settings.js';
import { POD_GRACE_SECONDS } from '../../src/schemas/deadlines.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { podTemplates, runningInvocation, T0 } from '../support/pod-fixtures.js';
import type { InvocationOutcome } from '../../src/schemas/reports.js';

const MiB = 1024 * 1024;
const inv = runningInvocation;
const templates = podTemplates;
const defaults = { containerLimitBytes: 2048 * MiB, shmBytes: 512 * MiB };
const shmMounts = (pod: PodObject) => pod.spec.containers.map((c) => c.volumeMounts?.find((m) => m.mountPath === '/dev/shm')?.name);

describe('browser pod memory', () => {
  it('gives a browser pod the configured memory limit and a memory-backed /dev/shm of the configured size in every container', () => {
    for (const chromiumSidecar of [false, true]) {
      const pod = browserPod(inv, 1, { ...templates, chromiumSidecar, browserMemory: { limit: '256Mi', shm: '64Mi' } });
      const browser = pod.spec.containers.find((c) => c.name === (chromiumSidecar ? 'chromium' : 'agent'))!;
      assert.deepEqual(browser.resources?.limits, { memory: '256Mi' });
      assert.equal(browser.resources?.requests?.memory, '256Mi', 'a request never above the limit');
      const [name, ...others] = shmMounts(pod);
      assert.ok(name && others.every((o) => o === name), 'every container mounts the one /dev/shm volume');
      assert.deepEqual(pod.spec.volumes?.find((v) => v.name === name)?.emptyDir, { medium: 'Memory', sizeLimit: '64Mi' });
    }
  });

  it('keeps the 2Gi default, lets a pool name its own limit, and never sizes /dev/shm above the limit', () => {
    const plain = browserPod(inv, 1, templates);
    assert.deepEqual(plain.spec.containers[0].resources, { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi' } });
    const pooled = browserPodFor(inv, 'm', {}, { limits: { memory: '300Mi' } }, 60, { ...templates, browserMemory: { limit: '1Gi', shm: '512Mi' } }, [], {});
    assert.equal(pooled.spec.containers[0].resources?.limits?.memory, '300Mi');
    assert.equal(pooled.spec.volumes?.find((v) => v.emptyDir?.medium === 'Memory')?.emptyDir?.sizeLimit, '300Mi');
  });

  it('reads a pod\'s limit (its containers\' limits added up, the default for one without) and its /dev/shm size back from the spec', () => {
    const sidecar = browserPod(inv, 1, { ...templates, chromiumSidecar: true, browserMemory: { limit: '256Mi', shm: '64Mi' } });
    assert.equal(podMemoryLimitBytes(sidecar, defaults), (256 + 512) * MiB, 'Chromium and the agent');
    assert.equal(podShmBytes(sidecar, defaults), 64 * MiB);
    assert.ok(isShmVolume(sidecar, shmMounts(sidecar)[0]!));
    assert.ok(!isShmVolume(sidecar, 'tmp'));
    const bare = { ...sidecar, spec: { containers: [{ name: 'c', image: 'i' }] } } as PodObject;
    assert.equal(podMemoryLimitBytes(bare, defaults), 2048 * MiB);
    assert.equal(podShmBytes(bare, defaults), 512 * MiB);
  });

  it('fails the invocation of a pod killed at its memory limit at once, naming the limit, without a retry', () => {
    const pod = browserPod(inv, 1, { ...templates, browserMemory: { limit: '256Mi', shm: '64Mi' } });
    pod.status = outOfMemoryStatus(pod, podMemoryLimitBytes(pod, defaults));
    assert.equal(pod.status.reason, 'OOMKilled');
    assert.deepEqual(pod.status.containerStatuses, [{ name: 'agent', state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } }]);
    const step = nextInvocationStep({ inv, pod, report: undefined, now: T0 + 5000 });
    assert.equal(step.action, 'finish');
    assert.ok(step.action === 'finish' && step.phase === 'FAILED');
    assert.equal(step.status.cause?.code, 'WORKLOAD_ERROR');
    assert.match(step.status.cause?.message ?? '', /ran out of memory: it exceeded its memory limit of 256 MiB and was killed \(OOMKilled\)/);
  });

  it('names the limit of the container a kubelet reports OOMKilled (the Chromium sidecar), and leaves other failures to the lost-pod rule', () => {
    const pod = browserPod(inv, 1, { ...templates, chromiumSidecar: true, browserMemory: { limit: '1Gi', shm: '64Mi' } });
    pod.status = { phase: 'Failed', containerStatuses: [{ name: 'chromium', state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } }, { name: 'agent', state: { terminated: { exitCode: 1, reason: 'Error' } } }] };
    const step = nextInvocationStep({ inv, pod, report: undefined, now: T0 });
    assert.ok(step.action === 'finish' && /memory limit of 1 GiB/.test(step.status.cause?.message ?? ''), JSON.stringify(step));
    pod.status = { phase: 'Failed', reason: 'Error' };
    assert.equal(nextInvocationStep({ inv, pod, report: undefined, now: T0 }).action, 'retry');
  });

  describe('a report of our own failure from a pod that ran out of memory', () => {
    const browserGone: InvocationOutcome = {
      phase: 'FAILED',
      cause: { code: 'INTERNAL_ERROR', message: 'The browser was killed or crashed during the invocation' },
      startedAt: new Date(T0).toISOString(),
      endedAt: new Date(T0 + 2000).toISOString(),
    };
    const memoryPod = (status: PodObject['status']) => ({ ...browserPod(inv, 1, { ...templates, browserMemory: { limit: '256Mi', shm: '64Mi' } }), status });
    const ranOutOfMemory = (pod: PodObject) => ({ ...pod, status: outOfMemoryStatus(pod, podMemoryLimitBytes(pod, defaults)) });

    it('waits for the pod to end, then gives the memory limit as the cause, keeping the report\'s times', () => {
      const running = memoryPod({ phase: 'Running' });
      const waiting = nextInvocationStep({ inv, pod: running, report: browserGone, now: T0 + 2100 });
      assert.deepEqual(waiting, { action: 'wait', recheckAfterMs: AGENT_EXIT_WAIT_MS - 100 });
      const step = nextInvocationStep({ inv, pod: ranOutOfMemory(running), report: browserGone, now: T0 + 2300 });
      assert.ok(step.action === 'finish' && step.phase === 'FAILED', JSON.stringify(step));
      assert.equal(step.status.cause?.code, 'WORKLOAD_ERROR');
      assert.match(step.status.cause?.message ?? '', /exceeded its memory limit of 256 MiB and was killed \(OOMKilled\)/);
      assert.equal(step.status.startedAt, browserGone.startedAt);
      assert.equal(step.status.endedAt, browserGone.endedAt);
    });

    it('gives the memory limit at once when a container was killed at it while the pod still runs (a Chromium sidecar)', () => {
      const sidecar = browserPod(inv, 1, { ...templates, chromiumSidecar: true, browserMemory: { limit: '1Gi', shm: '64Mi' } });
      sidecar.status = { phase: 'Running', containerStatuses: [{ name: 'chromium', state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } }, { name: 'agent', state: {} }] };
      const step = nextInvocationStep({ inv, pod: sidecar, report: browserGone, now: T0 + 2100 });
      assert.ok(step.action === 'finish' && /memory limit of 1 GiB/.test(step.status.cause?.message ?? ''), JSON.stringify(step));
    });

    it('keeps the report\'s cause when the pod ended otherwise, its agent exited with Chromium running on, or nothing ended within the wait or the deadline', () => {
      const ended = nextInvocationStep({ inv, pod: memoryPod({ phase: 'Succeeded', reason: 'Completed' }), report: browserGone, now: T0 + 2100 });
      assert.ok(ended.action === 'finish', JSON.stringify(ended));
      assert.deepEqual(ended.status.cause, browserGone.cause);
      const sidecar = browserPod(inv, 1, { ...templates, chromiumSidecar: true });
      sidecar.status = { phase: 'Running', containerStatuses: [{ name: 'chromium', state: {} }, { name: 'agent', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] };
      const agentExited = nextInvocationStep({ inv, pod: sidecar, report: browserGone, now: T0 + 2100 });
      assert.ok(agentExited.action === 'finish', JSON.stringify(agentExited));
      assert.deepEqual(agentExited.status.cause, browserGone.cause);
      const late = nextInvocationStep({ inv, pod: memoryPod({ phase: 'Running' }), report: browserGone, now: T0 + 2000 + AGENT_EXIT_WAIT_MS });
      assert.ok(late.action === 'finish', JSON.stringify(late));
      assert.deepEqual(late.status.cause, browserGone.cause);
      // A pod's clock an hour ahead: the invocation's deadline (60 s timeout and the grace) ends the wait.
      const ahead = { ...browserGone, endedAt: new Date(T0 + 3_600_000).toISOString() };
      const waiting = nextInvocationStep({ inv, pod: memoryPod({ phase: 'Running' }), report: ahead, now: T0 + 2100 });
      assert.ok(waiting.action === 'wait' && waiting.recheckAfterMs <= (60 + POD_GRACE_SECONDS) * 1000, JSON.stringify(waiting));
      const pastDeadline = nextInvocationStep({ inv, pod: memoryPod({ phase: 'Running' }), report: ahead, now: T0 + (60 + POD_GRACE_SECONDS) * 1000 });
      assert.ok(pastDeadline.action === 'finish', JSON.stringify(pastDeadline));
    });

    it('does not wait on a handler\'s own failure, a completed run, or a pod already gone', () => {
      const running = memoryPod({ phase: 'Running' });
      const handlerFailed: InvocationOutcome = { ...browserGone, cause: { code: 'WORKLOAD_ERROR', message: 'boom' } };
      for (const [report, pod] of [[handlerFailed, running], [{ ...browserGone, phase: 'COMPLETED', cause: undefined }, running], [browserGone, undefined]] as const) {
        const step = nextInvocationStep({ inv, pod, report, now: T0 + 2100 });
        assert.ok(step.action === 'finish', JSON.stringify(step));
        assert.deepEqual(step.status.cause, report.cause);
      }
    });
  });

  it('reads BROWSERFN_POD_MEMORY_MB and BROWSERFN_POD_SHM_MB, refusing a /dev/shm larger than the limit', () => {
    const settings = (env: Record<string, string>) => loadSettings({ dataDir: '/tmp/browserfn-settings-test', env: { BROWSERFN_POD_TOKEN_SECRET: 'x', BROWSERFN_API_KEY: 'k', ...env } }).podMemory;
    assert.deepEqual(settings({}), { limitMiB: 2048, shmMiB: 512, diskMiB: 2048 });
    assert.deepEqual(settings({ BROWSERFN_POD_MEMORY_MB: '256' }), { limitMiB: 256, shmMiB: 256, diskMiB: 2048 });
    assert.throws(() => settings({ BROWSERFN_POD_MEMORY_MB: '256', BROWSERFN_POD_SHM_MB: '512' }), /must not exceed BROWSERFN_POD_MEMORY_MB/);
  });
});
