// Service names in a sandboxed pod, as cluster DNS would answer them: a pod given
// http://backend.default.svc:8080 sees, in its own /etc/hosts, the address of a ready pod the
// Service selects, and sees the new one while it runs when those pods change (a rolled Deployment).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds, newObject, type KubeObject } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import { codeMounts, SANDBOX_PACKAGE_DIR } from '../../src/runtime/node-agent/code-mounts.js';
import { NodeAgent } from '../../src/runtime/node-agent/node-agent.js';
import { hostIdBlock } from '../../src/runtime/node-agent/host-ids.js';
import { runsAsRoot, trialUid } from '../../src/runtime/node-agent/pod-users.js';
import { detectSandboxSupport } from '../../src/runtime/sandbox/sandbox-support.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { waitFor } from '../support/service.js';

const NODE = 'services-test-node';
// Copies what the pod sees as /etc/hosts to its folder, over and over.
const WATCHER = "const fs = require('fs'); setInterval(() => fs.writeFileSync('/work/hosts-seen', fs.readFileSync('/etc/hosts')), 100);";

describe('node agent: Service names in sandboxed pods', function () {
  this.timeout(60_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-node-agent-services-'));
  let cluster: ClusterPort;
  let agent: NodeAgent;
  const pods = () => cluster.resource<PodObject>(Kinds.Pod);

  /** A pod of the Service, on another node, ready at `ip` (or not). */
  const backend = async (name: string, ip: string, ready: boolean) => {
    const existing = await pods().get('default', name);
    const pod = existing ?? (await pods().create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'backend' } }, spec: { nodeName: 'elsewhere', containers: [{ name: 'c', image: 'x' }] } }));
    await pods().updateStatus({ ...pod, status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
  };

  before(async () => {
    const code = codeMounts('/usr/bin/chromium');
    const support = await detectSandboxSupport({
      network: 'host',
      mounts: code.mounts,
      node: code.node,
      packageFile: join(SANDBOX_PACKAGE_DIR, 'package.json'),
      uid: runsAsRoot() ? trialUid(hostIdBlock(0).podUids) : undefined,
    });
    assert.ok(support.available, `the sandbox must work on this machine: ${support.available ? '' : support.reason}`);
    // What serve does to its data dir when pods run as other users: they may pass, not list.
    chmodSync(dataDir, 0o711);
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    await cluster.resource(Kinds.Service).create(newObject<KubeObject>(Kinds.Service, { name: 'backend', namespace: 'default' }, { spec: { selector: { app: 'backend' }, ports: [{ port: 8080 }] } }));
    agent = new NodeAgent({ cluster, nodeName: NODE, workDir: join(dataDir, 'pods'), log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), gracePeriodSeconds: 2, sandbox: { network: 'host', forwardPorts: [], chromiumSandbox: support.chromiumSandbox, code } });
    await agent.start();
  });
  after(async () => {
    await agent?.stop();
    await cluster?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resolves the Service to a ready pod behind it, and follows its pods while the pod runs', async () => {
    await backend('backend-1', '127.0.0.50', true);
    const client = await pods().create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'client', namespace: 'default' },
      spec: {
        nodeName: NODE,
        restartPolicy: 'Never',
        containers: [{ name: 'main', image: 'browserfn:local', command: ['node', '-e', WATCHER], env: [{ name: 'BACKEND_URL', value: 'http://backend.default.svc:8080' }], volumeMounts: [{ name: 'work', mountPath: '/work' }] }],
        volumes: [{ name: 'work', emptyDir: {} }],
      },
    });
    const seen = join(dataDir, 'pods', `default_client_${(client.metadata.uid ?? '').slice(0, 8)}`, 'work', 'hosts-seen');
    const sees = (line: string) => waitFor(`the pod to see "${line}"`, async () => {
      try {
        const hosts = readFileSync(seen, 'utf8');
        return hosts.includes(line) && /localhost/.test(hosts) ? hosts : undefined;
      } catch {
        return undefined;
      }
    }, 20_000, 100);
    await sees('127.0.0.50\tbackend.default.svc');
    // The Deployment rolls: a new pod becomes ready, the old one is not.
    await backend('backend-2', '127.0.0.51', true);
    await backend('backend-1', '127.0.0.50', false);
    const hosts = await sees('127.0.0.51\tbackend.default.svc');
    assert.doesNotMatch(hosts, /127\.0\.0\.50/);
    await pods().delete('default', 'client');
    await waitFor('the pod to stop', async () => (agent.runningPods === 0 ? true : undefined), 20_000, 100);
  });
});
