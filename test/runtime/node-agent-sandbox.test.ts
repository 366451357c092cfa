// The node agent's pod sandbox with real processes: all containers of a pod share one sandbox and
// its loopback (the sidecar layout), a pod sees its own folder at its mount path and nothing of
// the host's data, and deleting a pod leaves none of its processes, not even detached ones; a pod
// network made ahead serves one pod only and counts toward its cgroups.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import { NodeAgent, type NodeSandbox } from '../../src/runtime/node-agent/node-agent.js';
import { codeMounts, SANDBOX_PACKAGE_DIR } from '../../src/runtime/node-agent/code-mounts.js';
import { hostIdBlock } from '../../src/runtime/node-agent/host-ids.js';
import { runsAsRoot, trialUid } from '../../src/runtime/node-agent/pod-users.js';
import { detectSandboxSupport } from '../../src/runtime/sandbox/sandbox-support.js';
import { detectMemoryCgroups } from '../../src/runtime/node-agent/memory-cgroups.js';
import type { Container, PodObject } from '../../src/schemas/pod.js';
import { processesUnder, processTreeOf, realUidOf } from '../support/processes.js';
import { waitFor } from '../support/service.js';
import { artifactOf } from '../support/artifact.js';
import { browserPod } from '../../src/controller/pods/templates.js';
import type { InvocationReport } from '../../src/runtime/pod-agent/invocation-report.js';
import { POD_TOKEN_KEY, podTokenSecretName } from '../../src/controller/pods/token-secret.js';
import { Labels, Roles, type InvocationObject } from '../../src/schemas/resources.js';
import { fixtureProject } from './support/agent-process.js';
import { TestControlPlane } from './support/test-control-plane.js';

const NODE = 'sandbox-test-node';

function pod(name: string, containers: Omit<Container, 'image' | 'volumeMounts'>[], namespace = 'default', labels: Record<string, string> = {}): PodObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: {
      nodeName: NODE,
      restartPolicy: 'Never',
      containers: containers.map((c) => ({ ...c, image: 'browserfn:local', volumeMounts: [{ name: 'work', mountPath: '/work' }] })),
      volumes: [{ name: 'work', emptyDir: {} }],
    },
  };
}

const node = (script: string) => ['node', '-e', script];

/** The network namespaces made ahead by this process's agents (`net:[inode]`): those of each pasta's lone `cat`, the process holding them. */
function networksMadeAhead(): Set<string> {
  const parentOf = (pid: number) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  };
  const held = new Set<string>();
  for (const { pid, cmdline } of processTreeOf(new Set([process.pid]))) {
    try {
      if (cmdline.trim() === 'cat' && readFileSync(`/proc/${parentOf(pid)}/cmdline`, 'utf8').startsWith('pasta\0')) held.add(readlinkSync(`/proc/${pid}/ns/net`));
    } catch {
      // gone meanwhile
    }
  }
  return held;
}

/** The pasta whose holder is in network namespace `network`, if any. */
function pastaHolding(network: string): number | undefined {
  for (const { pid, cmdline } of processTreeOf(new Set([process.pid]))) {
    try {
      if (cmdline.startsWith('pasta ') && readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).some((child) => child && readlinkSync(`/proc/${child}/ns/net`) === network)) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** A pod that prints its network namespace, then exits 0 once the control plane at `url` answered it. */
const printsNetworkAndCalls = (url: string) =>
  node(`console.log('network', require('fs').readlinkSync('/proc/self/ns/net')); require('http').get(${JSON.stringify(url)}, (r) => process.exit(r.statusCode ? 0 : 1)).on('error', (e) => { console.error(e.message); process.exit(2); });`);


describe('node agent: pods in sandboxes', function () {
  this.timeout(120_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-node-agent-'));
  let cluster: ClusterPort;
  let agent: NodeAgent;
  let plane: TestControlPlane;
  let sandbox: NodeSandbox;
  const tokenSecret = 'sandbox-test-secret';
  const output = new Map<string, string>();
  const networkOf = (name: string) => /network (net:\[\d+\])/.exec(output.get(name) ?? '')?.[1];

  before(async function () {
    const code = codeMounts('/usr/bin/chromium');
    const support = await detectSandboxSupport({
      network: 'pasta',
      mounts: code.mounts,
      node: code.node,
      packageFile: join(SANDBOX_PACKAGE_DIR, 'package.json'),
      uid: runsAsRoot() ? trialUid(hostIdBlock(0).podUids) : undefined,
    });
    assert.ok(support.available, `the sandbox must work on this machine: ${support.available ? '' : support.reason}`);
    // The agent's control plane: the one host loopback port pods reach.
    plane = await TestControlPlane.start(`token-${randomBytes(12).toString('hex')}`);
    sandbox = { network: 'pasta', forwardPorts: [Number(new URL(plane.url).port)], chromiumSandbox: support.chromiumSandbox, code };
    writeFileSync(join(dataDir, 'secret.txt'), 'server secret', { mode: 0o600 });
    // What serve does to its data dir when pods run as other users: they may pass, not list.
    chmodSync(dataDir, 0o711);
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    agent = new NodeAgent({
      cluster,
      nodeName: NODE,
      workDir: join(dataDir, 'pods'),
      npmCacheDir: join(dataDir, 'npm-cache'),
      log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
      sandbox,
      gracePeriodSeconds: 2,
      onPodOutput: (pod, text) => output.set(pod.name, (output.get(pod.name) ?? '') + text),
    });
    await agent.start();
  });
  after(async () => {
    await agent?.stop();
    await cluster?.close();
    await plane?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const pods = () => cluster.resource<PodObject>(Kinds.Pod);
  const finished = (name: string, namespace = 'default') =>
    waitFor(`pod ${name} to finish`, async () => {
      const found = await pods().get(namespace, name);
      return found?.status?.phase === 'Succeeded' || found?.status?.phase === 'Failed' ? found : undefined;
    }, 60_000);

  it('runs all containers of a pod in one sandbox, sharing its loopback, with the pod folder at its mount path', async () => {
    await pods().create(
      pod('sidecar-layout', [
        // Like the Chromium sidecar: listens on the pod's loopback port 9222, serves one client.
        { name: 'server', command: node("const s = require('net').createServer((c) => { c.end('pong'); s.close(); }).listen(9222, '127.0.0.1')") },
        {
          name: 'client',
          command: node(
            "const fs = require('fs');" +
              "if (process.cwd() !== '/work') process.exit(3);" +
              "fs.writeFileSync('/work/written', 'ok');" +
              `if (fs.existsSync(${JSON.stringify(join(dataDir, 'secret.txt'))})) process.exit(4);` +
              "const tryOnce = () => { const c = require('net').connect(9222, '127.0.0.1');" +
              "c.on('data', (d) => process.exit(String(d) === 'pong' ? 0 : 5)); c.on('error', () => setTimeout(tryOnce, 20)); };" +
              'tryOnce();',
          ),
        },
      ]),
    );
    const done = await finished('sidecar-layout');
    assert.equal(done.status?.phase, 'Succeeded', JSON.stringify(done.status));
    assert.deepEqual(done.status?.containerStatuses?.map((c) => c.state?.terminated?.exitCode), [0, 0]);
  });

  it('runs the cluster layout of a browser pod: Chromium as a sidecar container at 127.0.0.1:9222, the agent beside it', async () => {
    const project = fixtureProject('runtime-suite');
    const artifact = await artifactOf(project, 'index.mts');
    const invocation = {
      apiVersion: 'browserfn.dev/v1alpha1',
      kind: 'Invocation',
      metadata: { name: 'inv-1', namespace: 'default', uid: '00000000-0000-4000-8000-000000000001' },
      spec: { functionName: 'echo', functionUid: 'f', versionId: 'v', bundleConfigMap: 'b', params: {}, sessionConfig: {}, timeoutSeconds: 30, sessionId: 's' },
    } as InvocationObject;
    plane.addPod('default', 'inv-1-a1', {
      input: { kind: 'invocation', invocationId: 'inv-1', functionName: 'echo', params: { value: 'from the sidecar pod' }, sessionId: 's', sessionConfig: {}, timeoutSeconds: 30, region: 'us-west-2' },
      artifact,
    });
    const spec = browserPod(invocation, 1, { nodeName: NODE, controlUrl: plane.url, podTokenSecret: tokenSecret, image: 'browserfn:local', chromiumSidecar: true });
    assert.deepEqual(spec.spec.containers.map((c) => c.name), ['chromium', 'agent']);
    // No Invocation object here: without its owner the store would collect the pod at once.
    await pods().create({ ...spec, metadata: { ...spec.metadata, ownerReferences: undefined } });
    // What the controller does next: the pod's token in the Secret its env refers to (this test control plane checks it as is).
    await cluster.resource(Kinds.Secret).create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: podTokenSecretName('inv-1-a1'), namespace: 'default' },
      data: { [POD_TOKEN_KEY]: Buffer.from(plane.token).toString('base64') },
    });
    const done = await finished('inv-1-a1');
    assert.equal(done.status?.phase, 'Succeeded', JSON.stringify(done.status));
    assert.deepEqual(readdirSync(join(dataDir, 'pods')).filter((name) => name.startsWith('default_inv-1-a1_')), [], 'the pod\'s folder (its browser profile with it) is gone once it says it ended');
    const [report] = plane.reportsOf('default', 'inv-1-a1') as InvocationReport[];
    assert.equal(report.phase, 'COMPLETED', JSON.stringify(report.cause));
    assert.equal(report.results, 'from the sidecar pod');
  });

  it('starts a pod in the network made ahead, which serves that pod alone: the next pod gets a new one', async () => {
    const url = plane.url;
    const madeAhead = await waitFor('a network made ahead', async () => (networksMadeAhead().size > 0 ? networksMadeAhead() : undefined), 20_000);
    await pods().create(pod('joins-first', [{ name: 'main', command: printsNetworkAndCalls(url) }]));
    assert.equal((await finished('joins-first')).status?.phase, 'Succeeded', output.get('joins-first'));
    const first = networkOf('joins-first');
    assert.ok(first && madeAhead.has(first), `the pod ran in ${first}, not in the network made ahead (${[...madeAhead].join(', ')})`);
    await waitFor('the first network to end with its pod', async () => (networksMadeAhead().has(first) ? undefined : true), 10_000);
    const next = await waitFor('the next network made ahead', async () => (networksMadeAhead().size > 0 ? networksMadeAhead() : undefined), 20_000);
    await pods().create(pod('joins-second', [{ name: 'main', command: printsNetworkAndCalls(url) }]));
    assert.equal((await finished('joins-second')).status?.phase, 'Succeeded', output.get('joins-second'));
    const second = networkOf('joins-second');
    assert.ok(second && next.has(second) && second !== first, `the second pod ran in ${second}; made ahead: ${[...next].join(', ')}; the first pod's: ${first}`);
  });

  it('moves the network made ahead into the memory cgroup of the pod that takes it, which then counts its pasta', async function () {
    const memory = detectMemoryCgroups();
    if (!memory.available) {
      console.warn(`SKIPPED: no memory cgroup for pods on this machine (${memory.reason})`);
      this.skip();
    }
    const nodeName = `${NODE}-cgroups`;
    const bounded = new NodeAgent({
      cluster,
      nodeName,
      workDir: join(dataDir, 'cgroup-pods'),
      log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
      sandbox,
      gracePeriodSeconds: 2,
      memory: { cgroups: memory.cgroups, defaults: { containerLimitBytes: 512 * 1024 * 1024, shmBytes: 64 * 1024 * 1024 } },
      onPodOutput: (pod, text) => output.set(pod.name, (output.get(pod.name) ?? '') + text),
    });
    await bounded.start();
    try {
      await waitFor('a network made ahead', async () => (networksMadeAhead().size > 1 ? true : undefined), 20_000);
      const running = pod('cgroup-joined', [{ name: 'main', command: node("console.log('network', require('fs').readlinkSync('/proc/self/ns/net')); setInterval(() => {}, 1000)") }]);
      running.spec.nodeName = nodeName;
      await pods().create(running);
      const network = await waitFor('the pod to say its network', async () => networkOf('cgroup-joined'), 20_000);
      const pasta = pastaHolding(network);
      assert.ok(pasta, `no pasta holds the pod's network ${network}: it was not made ahead`);
      const memoryCgroup = /^\d+:memory:(.*)$/m.exec(readFileSync(`/proc/${pasta}/cgroup`, 'utf8'))?.[1] ?? '';
      assert.match(memoryCgroup, /\/default_cgroup-joined_[^/]+$/, 'the pasta relaying the pod\'s traffic is in the pod\'s memory cgroup');
      await pods().delete('default', 'cgroup-joined');
      await waitFor('the pod to stop', async () => (bounded.runningPods === 0 ? true : undefined), 20_000);
    } finally {
      await bounded.stop();
    }
  });

  it('pods started together each get a network of their own, one the network made ahead, all reaching the control plane', async () => {
    const madeAhead = await waitFor('a network made ahead', async () => (networksMadeAhead().size > 0 ? networksMadeAhead() : undefined), 20_000);
    const names = ['together-1', 'together-2', 'together-3'];
    await Promise.all(names.map((name) => pods().create(pod(name, [{ name: 'main', command: printsNetworkAndCalls(plane.url) }]))));
    for (const name of names) assert.equal((await finished(name)).status?.phase, 'Succeeded', `${name}: ${output.get(name)}`);
    const networks = names.map(networkOf);
    assert.equal(new Set(networks).size, names.length, `the pods shared a network: ${networks.join(', ')}`);
    assert.equal(networks.filter((network) => network && madeAhead.has(network)).length, 1, `networks: ${networks.join(', ')}; made ahead: ${[...madeAhead].join(', ')}`);
  });

  it('gives build pods their own project\'s npm cache: another project sees none of it', async () => {
    const build = { [Labels.role]: Roles.buildPod };
    const write = node("require('fs').writeFileSync(process.env.BROWSERFN_NPM_CACHE + '/planted', 'x')");
    const expect = (present: boolean) => node(`process.exit(require('fs').existsSync(process.env.BROWSERFN_NPM_CACHE + '/planted') === ${present} ? 0 : 1)`);
    await pods().create(pod('build-a', [{ name: 'agent', command: write }], 'default', build));
    assert.equal((await finished('build-a')).status?.phase, 'Succeeded');
    await pods().create(pod('build-b', [{ name: 'agent', command: expect(false) }], 'other', build));
    assert.equal((await finished('build-b', 'other')).status?.phase, 'Succeeded', 'the other project sees the planted file');
    await pods().create(pod('build-a2', [{ name: 'agent', command: expect(true) }], 'default', build));
    assert.equal((await finished('build-a2')).status?.phase, 'Succeeded', 'the project keeps its cache');
  });

  it('reports each container exit code', async () => {
    await pods().create(pod('exit-codes', [{ name: 'ok', command: node('') }, { name: 'fails', command: node('process.exit(7)') }]));
    const done = await finished('exit-codes');
    assert.equal(done.status?.phase, 'Failed');
    assert.deepEqual(done.status?.containerStatuses?.map((c) => c.state?.terminated?.exitCode), [0, 7]);
  });

  it('deleting a pod kills everything of it, detached processes too', async () => {
    const marker = `${Date.now() % 100000}.123`;
    await pods().create(
      pod('long-running', [
        { name: 'main', command: node(`require('child_process').spawn('sleep', ['${marker}'], { detached: true, stdio: 'ignore' }).unref(); setInterval(() => {}, 1000)`) },
      ]),
    );
    await waitFor('the detached process to run', async () => (processesUnder(`sleep ${marker}`).length > 0 ? true : undefined), 30_000);
    await pods().delete('default', 'long-running');
    await waitFor('the pod object to go', async () => ((await pods().get('default', 'long-running')) ? undefined : true), 30_000);
    await waitFor('the detached process to be gone', async () => (processesUnder(`sleep ${marker}`).length === 0 ? true : undefined), 5_000);
    assert.deepEqual(processesUnder(join(dataDir, 'pods')), []);
  });

  it('gives the pods of two agents on one host (two `serve` instances) different host users (root)', async function () {
    if (!runsAsRoot()) {
      console.warn('SKIPPED: pods get host users of their own only when the agent runs as root');
      this.skip();
    }
    const second = new NodeAgent({ cluster, nodeName: `${NODE}-second`, workDir: join(dataDir, 'second-pods'), log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), sandbox, gracePeriodSeconds: 2 });
    await second.start();
    try {
      const sleeper = (name: string, nodeName: string) => {
        const created = pod(name, [{ name: 'main', command: node('setInterval(() => {}, 1000)') }]);
        created.spec.nodeName = nodeName;
        return created;
      };
      await pods().create(sleeper('uid-first', NODE));
      await pods().create(sleeper('uid-second', `${NODE}-second`));
      const hostUsers = (dir: string) => waitFor(`a process under ${dir}`, async () => {
        const uids = processesUnder(dir).map((p) => realUidOf(p.pid)).filter((uid) => uid !== undefined && uid !== 0);
        return uids.length > 0 ? new Set(uids) : undefined;
      }, 30_000);
      const first = await hostUsers(join(dataDir, 'pods'));
      const other = await hostUsers(join(dataDir, 'second-pods'));
      assert.deepEqual([...first].filter((uid) => other.has(uid)), [], `both agents' pods run as ${[...first].join(', ')}`);
      await pods().delete('default', 'uid-first');
      await pods().delete('default', 'uid-second');
      await waitFor('both pods to stop', async () => (agent.runningPods === 0 && second.runningPods === 0 ? true : undefined), 20_000);
    } finally {
      await second.stop();
    }
  });

  it('stops a fork bomb at the pod\'s process limit when each pod is a host user of its own (root)', async function () {
    if (!runsAsRoot()) {
      console.warn('SKIPPED: the per-pod process limit applies only when pods get host users of their own (the agent runs as root)');
      this.skip();
    }
    const limited = new NodeAgent({
      cluster,
      nodeName: `${NODE}-limited`,
      workDir: join(dataDir, 'limited-pods'),
      log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
      sandbox: { ...sandbox, maxProcesses: 100 },
      gracePeriodSeconds: 2,
    });
    await limited.start();
    try {
      // 300 sleepers: spawns past the limit fail (EAGAIN); it exits 0 only if some did.
      const script =
        "const kids = []; for (let i = 0; i < 300; i++) { const c = require('child_process').spawn('sleep', ['60'], { stdio: 'ignore' }); c.on('error', () => {}); if (c.pid === undefined) break; kids.push(c); }" +
        'const started = kids.length; kids.forEach((c) => c.kill());' +
        "console.log('started', started); process.exitCode = started < 300 ? 0 : 1;";
      const bomb = pod('fork-bomb', [{ name: 'main', command: node(script) }]);
      bomb.spec.nodeName = `${NODE}-limited`;
      await pods().create(bomb);
      const done = await finished('fork-bomb');
      assert.equal(done.status?.phase, 'Succeeded', `the pod started all 300 processes: ${JSON.stringify(done.status)}`);
      await waitFor('the pod\'s processes to be gone', async () => (processesUnder(join(dataDir, 'limited-pods')).length === 0 ? true : undefined), 10_000);
    } finally {
      await limited.stop();
    }
  });
});
