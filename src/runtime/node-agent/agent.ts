// The local node agent: a kubelet for one machine without containers. It runs the pods bound to
// its node as local processes, reports their phase, and kills everything of a pod when the pod is
// deleted or the agent stops, so no Chromium or user process outlives its pod.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { Kinds } from '../../cluster/objects.js';
import { isConflict, isNotFound, type ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import { Informer, objectKey } from '../../controller/runtime/informer.js';
import type { Container, PodObject, PodStatus } from '../../schemas/pod.js';
import { NodeRegistration } from './registration.js';
import { ContainerConfigError, DEFAULT_SECRET_WAIT, resolveContainerEnv } from './container-env.js';

export interface NodeAgentOptions {
  cluster: ClusterPort;
  nodeName: string;
  /** Pod working directories are created below it. */
  workDir: string;
  log: Logger;
  /** Environment every pod process gets on top of its container env (e.g. the Chromium path). */
  baseEnv?: Record<string, string>;
  /** Seconds between SIGTERM and SIGKILL when a pod is stopped. */
  gracePeriodSeconds?: number;
}

interface LocalContainer {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

interface LocalPod {
  containers: LocalContainer[];
  dir: string;
  exited: Promise<(number | null)[]>;
  stopping: boolean;
  output: string[];
}

const CLI_MAIN = fileURLToPath(new URL('../../cli/main.js', import.meta.url));
/** `browserfn pod-agent` and `browserfn build-agent` started without the CLI around them, for speed. */
const AGENT_MAINS: Record<string, string> = {
  'pod-agent': fileURLToPath(new URL('../pod-agent/main.js', import.meta.url)),
  'build-agent': fileURLToPath(new URL('../../build/main.js', import.meta.url)),
};

export class NodeAgent {
  private readonly pods: Informer<PodObject>;
  private readonly local = new Map<string, LocalPod>();
  /** Uids of pods whose process ended here, so a late event does not mistake them for lost. */
  private readonly finished = new Set<string>();
  private stopped = false;
  private readonly registration: NodeRegistration;

  constructor(private readonly options: NodeAgentOptions) {
    this.pods = new Informer<PodObject>(options.cluster, Kinds.Pod, options.log);
    this.registration = new NodeRegistration(options.cluster, options.nodeName, options.log);
  }

  async start(): Promise<void> {
    await this.registration.start();
    this.pods.addHandlers({
      onAdd: (pod) => void this.sync(pod),
      onUpdate: (_old, pod) => void this.sync(pod),
      onDelete: (pod) => {
        this.finished.delete(pod.metadata.uid ?? '');
        void this.stopPod(objectKey(pod));
      },
    });
    this.pods.start();
    await this.pods.waitForSync();
  }

  /** Stops every local pod (SIGTERM, then SIGKILL after the grace period) and the watch. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.pods.stop();
    await Promise.all([...this.local.keys()].map((key) => this.stopPod(key)));
    await this.registration.stop();
  }

  get runningPods(): number {
    return this.local.size;
  }

  private async sync(pod: PodObject): Promise<void> {
    if (this.stopped || pod.spec.nodeName !== this.options.nodeName) return;
    const key = objectKey(pod);
    if (pod.metadata.deletionTimestamp) {
      // As a kubelet: stop everything of the pod, then let the API server drop the object.
      await this.stopPod(key);
      await this.options.cluster
        .resource(Kinds.Pod)
        .delete(pod.metadata.namespace, pod.metadata.name, { uid: pod.metadata.uid, gracePeriodSeconds: 0 })
        .catch((err: unknown) => {
          if (!isNotFound(err) && !isConflict(err)) this.options.log.warn({ pod: key, err: (err as Error).message }, 'could not finish deleting a pod');
        });
      return;
    }
    if (this.local.has(key) || this.finished.has(pod.metadata.uid ?? '')) return;
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    if (phase === 'Running') {
      // Running on this node but no process here: the node restarted underneath it.
      await this.setStatus(pod, { ...pod.status, phase: 'Failed', reason: 'NodeRestarted', message: 'the node agent restarted while the pod ran' });
      return;
    }
    await this.run(pod);
  }

  private async run(pod: PodObject): Promise<void> {
    const key = objectKey(pod);
    const dir = join(this.options.workDir, `${pod.metadata.namespace}_${pod.metadata.name}_${(pod.metadata.uid ?? '').slice(0, 8)}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const local: LocalPod = { containers: [], dir, exited: Promise.resolve([]), stopping: false, output: [] };
    this.local.set(key, local);
    // Containers share the pod's loopback in a cluster; here pods share the machine's, so the
    // pod's CDP port becomes a free port of its own.
    const podEnv: Record<string, string> = {};
    if (pod.spec.containers.some((c) => c.env?.some((e) => e.name === 'BROWSERFN_CDP_PORT'))) podEnv.BROWSERFN_CDP_PORT = String(await freePort());
    let containerEnvs: Record<string, string>[];
    try {
      const wait = { ...DEFAULT_SECRET_WAIT, cancelled: () => local.stopping };
      containerEnvs = await Promise.all(pod.spec.containers.map((c) => resolveContainerEnv(this.options.cluster, pod, c, wait)));
    } catch (err) {
      // As a kubelet that cannot build a container's config: the pod does not start, and says why.
      this.local.delete(key);
      this.finished.add(pod.metadata.uid ?? '');
      rmSync(dir, { recursive: true, force: true });
      const reason = err instanceof ContainerConfigError ? err.reason : 'Error';
      if (!local.stopping) await this.setStatus(pod, { phase: 'Failed', reason, message: (err as Error).message });
      return;
    }
    if (local.stopping) return;
    pod.spec.containers.forEach((container, i) => local.containers.push(this.startContainer(key, pod, container, containerEnvs[i], dir, podEnv, local.output)));
    local.exited = Promise.all(local.containers.map((c) => c.exited));
    this.options.log.debug({ pod: key, pids: local.containers.map((c) => c.child.pid) }, 'pod started');
    void this.setStatus(pod, { phase: 'Running', startTime: new Date().toISOString() });
    void local.exited.then(async (codes) => {
      this.finished.add(pod.metadata.uid ?? '');
      this.local.delete(key);
      killStragglers(dir);
      rmSync(dir, { recursive: true, force: true });
      if (local.stopping) return;
      const ok = codes.every((code) => code === 0);
      const status: PodStatus = {
        phase: ok ? 'Succeeded' : 'Failed',
        reason: ok ? 'Completed' : 'Error',
        message: ok ? undefined : lastLines(local.output),
        containerStatuses: local.containers.map((c, i) => ({ name: c.name, state: { terminated: { exitCode: codes[i] ?? 1 } } })),
      };
      this.options.log.debug({ pod: key, codes }, 'pod exited');
      const fresh = await this.options.cluster.resource<PodObject>(Kinds.Pod).get(pod.metadata.namespace, pod.metadata.name);
      if (fresh && fresh.metadata.uid === pod.metadata.uid) await this.setStatus(fresh, { ...fresh.status, ...status });
    });
  }

  /** One container as one process group: its volumes are folders of the pod's folder, `$(VAR)` expanded. */
  private startContainer(key: string, pod: PodObject, container: Container, containerEnv: Record<string, string>, dir: string, podEnv: Record<string, string>, output: string[]): LocalContainer {
    const mounts = (container.volumeMounts ?? []).map((m) => ({ from: m.mountPath, to: join(dir, m.name) }));
    for (const { to } of mounts) mkdirSync(to, { recursive: true, mode: 0o700 });
    const localPath = (value: string) => mounts.reduce((v, m) => v.split(m.from).join(m.to), value);
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...this.options.baseEnv };
    for (const [name, value] of Object.entries(containerEnv)) env[name] = localPath(value);
    Object.assign(env, podEnv);
    const expand = (arg: string) => localPath(arg).replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);
    const [file, args] = this.resolveCommand([...(container.command ?? []), ...(container.args ?? [])].map(expand));
    const child = spawn(file, args, { env, cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      const text = chunk.toString();
      output.push(text);
      if (output.length > 50) output.shift();
      this.options.log.debug({ pod: key, container: container.name, output: text.trimEnd() }, 'pod output');
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const exited = new Promise<number | null>((resolve) => {
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : null)));
      child.on('error', (err) => {
        output.push(String(err));
        resolve(127);
      });
    });
    return { name: container.name, child, exited };
  }

  private async stopPod(key: string): Promise<void> {
    const local = this.local.get(key);
    if (!local) return;
    local.stopping = true;
    for (const c of local.containers) signalGroup(c.child, 'SIGTERM');
    const grace = (this.options.gracePeriodSeconds ?? 10) * 1000;
    const timer = setTimeout(() => local.containers.forEach((c) => signalGroup(c.child, 'SIGKILL')), grace);
    await local.exited;
    clearTimeout(timer);
    for (const c of local.containers) signalGroup(c.child, 'SIGKILL');
    killStragglers(local.dir);
  }

  /** `browserfn <command>` runs this package's own code with the same Node. */
  private resolveCommand(command: string[]): [string, string[]] {
    if (command[0] === 'browserfn' && AGENT_MAINS[command[1]]) return [process.execPath, [AGENT_MAINS[command[1]], ...command.slice(2)]];
    if (command[0] === 'browserfn') return [process.execPath, [CLI_MAIN, ...command.slice(1)]];
    if (command[0] === 'chromium') return [this.options.baseEnv?.BROWSERFN_CHROMIUM_PATH ?? 'chromium', command.slice(1)];
    return [command[0], command.slice(1)];
  }

  private async setStatus(pod: PodObject, status: PodStatus): Promise<void> {
    const pods = this.options.cluster.resource<PodObject>(Kinds.Pod);
    let current: PodObject | undefined = pod;
    for (let attempt = 0; attempt < 5 && current; attempt++) {
      try {
        await pods.updateStatus({ ...current, status: { ...status } });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err)) {
          this.options.log.warn({ pod: pod.metadata.name, err: (err as Error).message }, 'pod status update failed');
          return;
        }
        current = await pods.get(pod.metadata.namespace, pod.metadata.name);
        if (current?.metadata.uid !== pod.metadata.uid) return;
      }
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * The agent puts Chromium and user code in process groups of their own; should the agent die
 * without cleaning up, anything still running from the pod's folder is killed here.
 */
function killStragglers(podDir: string): void {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cwd = safeReadlink(`/proc/${entry}/cwd`);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cwd.startsWith(podDir) || cmdline.includes(podDir)) process.kill(Number(entry), 'SIGKILL');
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
}

function safeReadlink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

function lastLines(output: string[]): string {
  return output.join('').split('\n').filter(Boolean).slice(-5).join('\n').slice(-2000);
}
