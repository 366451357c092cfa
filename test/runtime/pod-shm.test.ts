// A sandboxed pod's /dev/shm (docs/pod-memory.md): a tmpfs of its own, sized by its memory-backed
// volume or the node's default, never the host's and never another pod's; and with a memory cgroup,
// what it holds counts against the pod's memory limit.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import { NodeAgent } from '../../src/runtime/node-agent/node-agent.js';
import { codeMounts, SANDBOX_PACKAGE_DIR } from '../../src/runtime/node-agent/code-mounts.js';
import { detectMemoryCgroups, type MemoryCgroups } from '../../src/runtime/node-agent/memory-cgroups.js';
import { hostIdBlock } from '../../src/runtime/node-agent/host-ids.js';
import { runsAsRoot, trialUid } from '../../src/runtime/node-agent/pod-users.js';
import { detectSandboxSupport } from '../../src/runtime/sandbox/sandbox-support.js';
import type { Container, PodObject } from '../../src/schemas/pod.js';
import { waitFor } from '../support/service.js';
import { startHoldServer, type HoldServer } from '../support/hold-server.js';
import { processesUnder } from '../support/processes.js';

const NODE = 'shm-test-node';
const MiB = 1024 * 1024;
const DEFAULT_SHM_MIB = 16;

function pod(name: string, command: string[], memory?: { limit: string; shm: string }): PodObject {
  const container: Container = { name: 'main', image: 'browserfn:local', command, volumeMounts: [{ name: 'work', mountPath: '/work' }] };
  const volumes: PodObject['spec']['volumes'] = [{ name: 'work', emptyDir: {} }];
  if (memory) {
    container.resources = { limits: { memory: memory.limit } };
    container.volumeMounts!.push({ name: 'dshm', mountPath: '/dev/shm' });
    volumes.push({ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: memory.shm } });
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: NODE, restartPolicy: 'Never', containers: [container], volumes } };
}

const node = (script: string) => ['node', '-e', script];

describe('node agent: each sandboxed pod\'s own /dev/shm', function () {
  this.timeout(120_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-shm-'));
  const hostMarker = `/dev/shm/browserfn-host-${randomBytes(4).toString('hex')}`;
  let cluster: ClusterPort;
  let agent: NodeAgent;
  let hold: HoldServer;
  let cgroups: MemoryCgroups | undefined;

  before(async function () {
    const code = codeMounts('/usr/bin/chromium');
    const support = await detectSandboxSupport({
      network: 'host',
      mounts: code.mounts,
      node: code.node,
      packageFile: join(SANDBOX_PACKAGE_DIR, 'package.json'),
      uid: runsAsRoot() ? trialUid(hostIdBlock(0).podUids) : undefined,
    });
    if (!support.available) {
      console.warn(`    SKIPPED /dev/shm tests: pods cannot be sandboxed here (${support.reason})`);
      this.skip();
    }
    const memory = detectMemoryCgroups();
    if (memory.available) cgroups = memory.cgroups;
    else console.warn(`    (no memory cgroup for pods here: ${memory.reason}; the test that needs one skips)`);
    writeFileSync(hostMarker, 'the host\'s');
    // What serve does to its data dir when pods run as other users: they may pass, not list.
    chmodSync(dataDir, 0o711);
    hold = await startHoldServer();
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    agent = new NodeAgent({
      cluster,
      nodeName: NODE,
      workDir: join(dataDir, 'pods'),
      log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
      // The host's network: pods reach the hold server on 127.0.0.1.
      sandbox: { network: 'host', forwardPorts: [], chromiumSandbox: support.available && support.chromiumSandbox, code },
      memory: { cgroups, defaults: { containerLimitBytes: 256 * MiB, shmBytes: DEFAULT_SHM_MIB * MiB } },
      gracePeriodSeconds: 2,
    });
    await agent.start();
  });
  after(async () => {
    hold?.release();
    await agent?.stop();
    await cluster?.close();
    await hold?.close();
    rmSync(hostMarker, { force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  const pods = () => cluster.resource<PodObject>(Kinds.Pod);
  const finished = (name: string) =>
    waitFor(`pod ${name} to finish`, async () => {
      const found = await pods().get('default', name);
      return found?.status?.phase === 'Succeeded' || found?.status?.phase === 'Failed' ? found : undefined;
    }, 60_000);

  it('shows a pod neither the host\'s /dev/shm nor another running pod\'s, and sizes its own', async () => {
    // Pod A keeps a file in its /dev/shm while pod B looks.
    await pods().create(pod('shm-a', node(`require('fs').writeFileSync('/dev/shm/pod-a', 'a'); fetch(${JSON.stringify(hold.url)}).then(() => process.exit(require('fs').existsSync('/dev/shm/pod-a') ? 0 : 9))`)));
    await hold.arrived(1);
    assert.ok(!existsSync('/dev/shm/pod-a'), 'pod A\'s file is not in the host\'s /dev/shm');
    const look =
      "const fs = require('fs'); const seen = fs.readdirSync('/dev/shm'); if (seen.length > 0) { console.error('sees', seen); process.exit(3); }" +
      `const { blocks, bsize } = fs.statfsSync('/dev/shm'); if (blocks * bsize !== ${DEFAULT_SHM_MIB * MiB}) { console.error('size', blocks * bsize); process.exit(4); }` +
      `try { fs.writeFileSync('/dev/shm/fill', Buffer.alloc(${(DEFAULT_SHM_MIB + 1) * MiB}, 1)); process.exit(5); } catch (e) { process.exit(e.code === 'ENOSPC' ? 0 : 6); }`;
    await pods().create(pod('shm-b', node(look)));
    const b = await finished('shm-b');
    assert.equal(b.status?.phase, 'Succeeded', `pod B saw another /dev/shm or a wrong size: ${JSON.stringify(b.status)}`);
    hold.release();
    const a = await finished('shm-a');
    assert.equal(a.status?.phase, 'Succeeded', JSON.stringify(a.status));
    assert.deepEqual(processesUnder(join(dataDir, 'pods')), []);
  });

  it('counts what a pod keeps in /dev/shm against its memory limit', async function () {
    if (!cgroups) {
      console.warn('    SKIPPED: no memory cgroup for pods on this machine');
      this.skip();
    }
    // A /dev/shm as large as the limit: the files fit it, but not the pod's memory beside its processes.
    const fill = (mib: number) => ['sh', '-c', `dd if=/dev/zero of=/dev/shm/fill bs=1M count=${mib} 2>&1`];
    await pods().create(pod('shm-within', fill(16), { limit: '128Mi', shm: '128Mi' }));
    assert.equal((await finished('shm-within')).status?.phase, 'Succeeded');
    const beyondMiB = 120;
    await pods().create(pod('shm-beyond', fill(beyondMiB), { limit: '128Mi', shm: '128Mi' }));
    const beyond = await finished('shm-beyond');
    assert.equal(beyond.status?.phase, 'Failed', `${beyondMiB} MiB of /dev/shm fit beside the pod's processes in 128 MiB: ${JSON.stringify(beyond.status)}`);
    // The memory cgroup stops the writes: dd says why, or (its error line needs a pipe buffer charged
    // to the full cgroup, and a CI run saw it lost) its count of the blocks written says it stopped short.
    const written = /(\d+)\+\d+ records out/.exec(beyond.status?.message ?? '');
    assert.ok(
      /OOMKilled|Cannot allocate memory|No space left/.test(JSON.stringify(beyond.status)) || (written !== null && Number(written[1]) < beyondMiB),
      `the pod failed for another reason than its memory: ${JSON.stringify(beyond.status)}`,
    );
    const podCgroups = () => readdirSync(cgroups!.parent, { withFileTypes: true }).filter((e) => e.isDirectory());
    await waitFor('the pods\' memory cgroups to be removed', async () => (podCgroups().length === 0 ? true : undefined), 10_000);
  });
});
