// Unsandboxed pods of the node agent as Deployment replicas need them: two replicas of one server
// bind the same port, each on its own loopback address (status.podIP, BROWSERFN_HOST), and become
// Ready once their readiness probe answers there; a pod's /tmp volume is its own folder (TMPDIR, and
// mount paths in its arguments map to it, a folder under the host's /tmp not mapped again).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import { NodeAgent } from '../../src/runtime/node-agent/node-agent.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { waitFor } from '../support/service.js';

const NODE = 'local-test-node';
const PORT = 20_000 + Math.floor(Math.random() * 20_000);

// Fails (exit 3) unless its argument is its own TMPDIR's file; then serves on the pod's address.
const SERVER = `
const fs = require('fs');
fs.writeFileSync(process.argv[1], 'written');
if (!process.env.TMPDIR || process.argv[1] !== process.env.TMPDIR + '/probe-file') process.exit(3);
require('http').createServer((req, res) => res.end(process.env.BROWSERFN_HOST)).listen(${PORT}, process.env.BROWSERFN_HOST);
`;

function replica(name: string): PodObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: NODE,
      restartPolicy: 'Always',
      containers: [{
        name: 'server',
        image: 'browserfn:local',
        command: ['node', '-e', SERVER, '/tmp/probe-file'],
        ports: [{ name: 'http', containerPort: PORT }],
        readinessProbe: { httpGet: { path: '/', port: 'http' } },
        volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
      }],
      volumes: [{ name: 'tmp', emptyDir: {} }],
    },
  };
}

describe('node agent: unsandboxed replicas on the host\'s network', function () {
  this.timeout(60_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-node-agent-local-'));
  let cluster: ClusterPort;
  let agent: NodeAgent;

  before(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    agent = new NodeAgent({ cluster, nodeName: NODE, workDir: join(dataDir, 'pods'), log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), gracePeriodSeconds: 2 });
    await agent.start();
  });
  after(async () => {
    await agent?.stop();
    await cluster?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('two replicas on one port, each on its own address, Ready once their probe answers there; /tmp is each pod\'s own', async () => {
    const pods = cluster.resource<PodObject>(Kinds.Pod);
    await pods.create(replica('server-a'));
    await pods.create(replica('server-b'));
    const ready = await Promise.all(['server-a', 'server-b'].map((name) => waitFor(`${name} to be Ready`, async () => {
      const pod = await pods.get('default', name);
      assert.notEqual(pod?.status?.phase, 'Failed', JSON.stringify(pod?.status));
      return pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? pod : undefined;
    }, 30_000, 100)));
    const [a, b] = ready.map((pod) => pod.status!.podIP!);
    assert.notEqual(a, b);
    for (const ip of [a, b]) {
      assert.match(ip, /^127\./);
      assert.equal(await (await fetch(`http://${ip}:${PORT}/`)).text(), ip, 'the pod answers on its own address');
    }
    await pods.delete('default', 'server-a');
    await pods.delete('default', 'server-b');
    await waitFor('both pods to stop', async () => (agent.runningPods === 0 ? true : undefined), 20_000, 100);
  });
});

describe('node agent: a pod it cannot prepare', function () {
  this.timeout(60_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-node-agent-broken-'));
  let cluster: ClusterPort;
  let agent: NodeAgent;

  before(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    // Pod folders cannot be made below a file, as on a data dir that went bad.
    writeFileSync(join(dataDir, 'not-a-folder'), '');
    agent = new NodeAgent({ cluster, nodeName: NODE, workDir: join(dataDir, 'not-a-folder', 'pods'), log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), gracePeriodSeconds: 2 });
    await agent.start();
  });
  after(async () => {
    await agent?.stop();
    await cluster?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends Failed saying why, instead of staying Pending with nothing running, and keeps serving other pods', async () => {
    const pods = cluster.resource<PodObject>(Kinds.Pod);
    await pods.create(replica('cannot-start'));
    const failed = await waitFor('the pod to fail', async () => {
      const pod = await pods.get('default', 'cannot-start');
      return pod?.status?.phase === 'Failed' ? pod : undefined;
    }, 30_000, 100);
    assert.match(failed.status?.message ?? '', /ENOTDIR/);
    assert.equal(agent.runningPods, 0, 'nothing of it is left running or counted');
    await pods.create(replica('cannot-start-either'));
    await waitFor('the next pod to fail too (the agent still serves)', async () => ((await pods.get('default', 'cannot-start-either'))?.status?.phase === 'Failed' ? true : undefined), 30_000, 100);
  });
});

describe('node agent: two agents on one host (two `serve` instances)', function () {
  this.timeout(60_000);
  const dataDirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'browserfn-node-agent-pair-')));
  const clusters: ClusterPort[] = [];
  const agents: NodeAgent[] = [];

  before(async () => {
    for (const dataDir of dataDirs) {
      const cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
      clusters.push(cluster);
      const agent = new NodeAgent({ cluster, nodeName: NODE, workDir: join(dataDir, 'pods'), log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), gracePeriodSeconds: 2 });
      agents.push(agent);
      await agent.start();
    }
  });
  after(async () => {
    await Promise.all(agents.map((agent) => agent.stop()));
    await Promise.all(clusters.map((cluster) => cluster.close()));
    for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
  });

  it('hand their pods different loopback addresses: the same pod on both binds its port on each', async () => {
    const ips = await Promise.all(clusters.map(async (cluster, i) => {
      const pods = cluster.resource<PodObject>(Kinds.Pod);
      await pods.create(replica('server'));
      const pod = await waitFor(`agent ${i}'s pod to be Ready`, async () => {
        const current = await pods.get('default', 'server');
        assert.notEqual(current?.status?.phase, 'Failed', JSON.stringify(current?.status));
        return current?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? current : undefined;
      }, 30_000, 100);
      return pod.status!.podIP!;
    }));
    assert.notEqual(ips[0], ips[1]);
    for (const ip of ips) assert.equal(await (await fetch(`http://${ip}:${PORT}/`)).text(), ip, 'each pod answers on its own address');
    await Promise.all(clusters.map((cluster) => cluster.resource<PodObject>(Kinds.Pod).delete('default', 'server')));
    await waitFor('both pods to stop', async () => (agents.every((agent) => agent.runningPods === 0) ? true : undefined), 20_000, 100);
  });
});

describe('node agent: stopping it (`serve` shutting down)', function () {
  this.timeout(60_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-node-agent-stop-'));
  let cluster: ClusterPort;

  before(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
  });
  after(async () => {
    await cluster?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops its running pods and returns only once their folders are gone', async () => {
    const workDir = join(dataDir, 'pods');
    const agent = new NodeAgent({ cluster, nodeName: NODE, workDir, log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), gracePeriodSeconds: 2 });
    await agent.start();
    const pods = cluster.resource<PodObject>(Kinds.Pod);
    await pods.create(replica('running-at-stop'));
    await waitFor('the pod to be Ready', async () => {
      const pod = await pods.get('default', 'running-at-stop');
      return pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? pod : undefined;
    }, 30_000, 100);
    assert.equal(readdirSync(workDir).filter((name) => name.startsWith('default_running-at-stop_')).length, 1);
    await agent.stop();
    assert.deepEqual(existsSync(workDir) ? readdirSync(workDir).filter((name) => !name.startsWith('.')) : [], [], 'pod folders left after the stop');
  });
});
