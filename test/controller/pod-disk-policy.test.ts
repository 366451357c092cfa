// Browser and build pods' folders on disk (docs/pod-memory.md), decided without a cluster: the
// sizeLimit the templates give /work and /tmp, what the node agent reads back from a spec, and an
// eviction for a folder past its limit turned into the invocation's cause (an eviction for the
// node's own pressure stays a lost pod, retried).
import assert from 'node:assert/strict';
import { nextInvocationStep } from '../../src/controller/policies/invocation.js';
import { browserPod, browserPodFor, buildPod } from '../../src/controller/pods/templates.js';
import { evictedStatus, limitedFolders } from '../../src/runtime/node-agent/pod-disk.js';
import { loadSettings } from '../../src/config/settings.js';
import type { BuildObject } from '../../src/schemas/resources.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { podTemplates, runningInvocation, T0 } from '../support/pod-fixtures.js';

const MiB = 1024 * 1024;
const inv = runningInvocation;
const build = { apiVersion: 'browserfn.dev/v1alpha1', kind: 'Build', metadata: { name: 'b-1', namespace: 'p', uid: 'uid-b-1' }, spec: {} } as unknown as BuildObject;
const templates = podTemplates;
const sizeLimits = (pod: PodObject) => Object.fromEntries((pod.spec.volumes ?? []).filter((v) => v.emptyDir && v.emptyDir.medium !== 'Memory').map((v) => [v.name, v.emptyDir!.sizeLimit]));
/** The node agent's folders of a pod: one per volume mounted, memory-backed ones included. */
const folders = (pod: PodObject) => (pod.spec.volumes ?? []).map((v) => ({ name: v.name, folder: `/pods/x/${v.name}`, mountPath: `/${v.name}` }));

describe('pod folders on disk', () => {
  it('gives every browser pod folder on disk the configured size limit (2Gi by default), pool members and sidecar pods included, and builds 4Gi', () => {
    assert.deepEqual(sizeLimits(browserPod(inv, 1, templates)), { work: '2Gi', tmp: '2Gi' });
    for (const chromiumSidecar of [false, true]) {
      assert.deepEqual(sizeLimits(browserPod(inv, 1, { ...templates, chromiumSidecar, browserDisk: '64Mi' })), { work: '64Mi', tmp: '64Mi' });
    }
    assert.deepEqual(sizeLimits(browserPodFor(inv, 'member', {}, undefined, 60, { ...templates, browserDisk: '300Mi' }, [], {})), { work: '300Mi', tmp: '300Mi' });
    assert.deepEqual(sizeLimits(buildPod(build, { ...templates, browserDisk: '64Mi' })), { work: '4Gi', tmp: '4Gi' });
  });

  it('reads the limited folders back from the spec, leaving the memory-backed /dev/shm to the memory limit', () => {
    const pod = browserPod(inv, 1, { ...templates, browserDisk: '64Mi' });
    assert.deepEqual(
      limitedFolders(pod, folders(pod)).map(({ name, sizeLimit, limitBytes }) => ({ name, sizeLimit, limitBytes })),
      [
        { name: 'work', sizeLimit: '64Mi', limitBytes: 64 * MiB },
        { name: 'tmp', sizeLimit: '64Mi', limitBytes: 64 * MiB },
      ],
    );
    const unlimited = { ...pod, spec: { ...pod.spec, volumes: [{ name: 'work', emptyDir: {} }] } } as PodObject;
    assert.deepEqual(limitedFolders(unlimited, folders(unlimited)), []);
  });

  it("fails the invocation of a pod evicted for a folder past its limit at once, in the kubelet's words, without a retry", () => {
    const pod = browserPod(inv, 1, { ...templates, browserDisk: '64Mi' });
    const [work] = limitedFolders(pod, folders(pod));
    pod.status = evictedStatus(pod, work!);
    assert.equal(pod.status.reason, 'Evicted');
    assert.equal(pod.status.message, 'Usage of EmptyDir volume "work" exceeds the limit "64Mi". ');
    const step = nextInvocationStep({ inv, pod, report: undefined, now: T0 + 5000 });
    assert.ok(step.action === 'finish' && step.phase === 'FAILED', JSON.stringify(step));
    assert.equal(step.status.cause?.code, 'WORKLOAD_ERROR');
    assert.match(step.status.cause?.message ?? '', /wrote more to disk than it may and was evicted \(Usage of EmptyDir volume "work" exceeds the limit "64Mi"\.\).*BROWSERFN_POD_DISK_MB/);
  });

  it("fails on a kubelet's ephemeral-storage evictions of the pod's own, and retries one for the node's pressure", () => {
    const pod = browserPod(inv, 1, templates);
    for (const message of ['Pod ephemeral local storage usage exceeds the total limit of containers 1Gi. ', 'Container agent exceeded its local ephemeral storage limit "1Gi". ']) {
      pod.status = { phase: 'Failed', reason: 'Evicted', message };
      const step = nextInvocationStep({ inv, pod, report: undefined, now: T0 });
      assert.ok(step.action === 'finish' && step.status.cause?.code === 'WORKLOAD_ERROR', `${message}: ${JSON.stringify(step)}`);
    }
    pod.status = { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 9Gi. ' };
    assert.equal(nextInvocationStep({ inv, pod, report: undefined, now: T0 }).action, 'retry');
  });

  it('reads BROWSERFN_POD_DISK_MB, refusing a size too small for a browser', () => {
    const settings = (env: Record<string, string>) => loadSettings({ dataDir: '/tmp/browserfn-settings-test', env: { BROWSERFN_POD_TOKEN_SECRET: 'x', BROWSERFN_API_KEY: 'k', ...env } }).podMemory.diskMiB;
    assert.equal(settings({}), 2048);
    assert.equal(settings({ BROWSERFN_POD_DISK_MB: '64' }), 64);
    assert.throws(() => settings({ BROWSERFN_POD_DISK_MB: '8' }), /BROWSERFN_POD_DISK_MB/);
  });
});
