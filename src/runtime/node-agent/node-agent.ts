// The local node agent: a kubelet for one machine without containers. It runs the pods bound to
// its node — each in a sandbox of its own (bubblewrap + pasta) where that works, else as local
// process groups — reports their phase, and kills everything of a pod when the pod is deleted or
// the agent stops, so no Chromium or user process outlives its pod. Pods of a Deployment (the
// chart's operator and API) work too: a container without command runs the image's entrypoint
// (`browserfn`), envFrom and fieldRef are resolved, the ServiceAccount token volume is filled from
// TokenRequest and seen at the standard path in the sandbox (projected-volumes.ts), a pod on the
// host's network gets a loopback address of its own (pod-addresses.ts, host-ids.ts), a sandboxed
// pod's /etc/hosts resolves the Service names it is given (pod-hosts-files.ts), a container's
// command and environment are made as a kubelet's (container-commands.ts), and Ready follows the readiness
// probes (readiness.ts). Each pod's memory is bounded by a cgroup of its own where the machine lets
// the agent make one (memory-cgroups.ts), and a pod out of memory ends OOMKilled (pod-memory.ts);
// its CPU is shared by the weight of its requests in a cpu cgroup of its own, a waiting pool member
// only taking CPU nothing else wants (cpu-cgroups.ts, pod-cpu.ts); a pod whose folder holds more
// than its volume's sizeLimit is evicted (pod-disk.ts).
import { ControlPlaneClient } from '../agent-common/control-plane-client.js';
import { operatorGlobalConfig } from '../../build/npm-settings.js';
import type { ArtifactCache } from './artifact-cache.js';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { Kinds } from '../../cluster/objects.js';
import { isConflict, isNotFound, type ClusterPort } from '../../cluster/port.js';
import { retryOnConflict } from '../../cluster/retry.js';
import type { Logger } from '../../config/logger.js';
import { Informer, objectKey } from '../../controller/runtime/informer.js';
import type { PodObject, PodStatus } from '../../schemas/pod.js';
import { Labels, Roles } from '../../schemas/resources.js';
import type { SandboxMount, SandboxNetwork } from '../sandbox/pod-sandbox.js';
import type { CodeMounts } from './code-mounts.js';
import type { PodEntrance, PodEntrances } from './pod-entrance.js';
import { startProcessGroups, startSandboxedPod, type EnterCgroup, type PodProcesses } from './pod-processes.js';
import { killProcessesUnder } from '../sandbox/process-group.js';
import { chownTree, PodUids, projectNpmCache, runsAsRoot } from './pod-users.js';
import { NodeRegistration } from './registration.js';
import { ContainerConfigError, DEFAULT_SECRET_WAIT, resolveContainerEnv } from './container-env.js';
import { localPathMapper, type VolumeFolder } from './local-paths.js';
import { claimHostIds, type HostIds } from './host-ids.js';
import { PodAddresses } from './pod-addresses.js';
import { fillProjectedVolume, hasServiceAccountToken } from './projected-volumes.js';
import { waitUntilReady } from './readiness.js';
import type { MemoryCgroups, PodMemoryCgroup } from './memory-cgroups.js';
import type { CpuCgroups, PodCpuCgroup } from './cpu-cgroups.js';
import { isWaitingMember, podCpuShare } from './pod-cpu.js';
import { enterCgroups } from './cgroup-entry.js';
import { OomWatch } from './oom-watch.js';
import { ContainerCommands } from './container-commands.js';
import { isShmVolume, outOfMemoryStatus, podMemoryLimitBytes, podShmBytes, type PodMemoryDefaults } from './pod-memory.js';
import { evictedStatus, limitedFolders, type LimitedFolder } from './pod-disk.js';
import { DiskWatch } from './disk-watch.js';
import { PodHostsFiles } from './pod-hosts-files.js';
import { PodEnv } from '../../schemas/pod-env.js';
import { NetworkMaker, type SpareNetwork } from './spare-networks.js';
import { SpareKeeper } from './spare-keeper.js';
import { placeArtifact, removeSandboxesLeftAhead, SANDBOX_ARTIFACT_FILE, SpareSandboxes, type SandboxShape, type SpareSandbox } from './spare-sandboxes.js';
import { inProcessScript, type LaunchedContainer } from './pod-launcher.js';

export interface NodeAgentOptions {
  cluster: ClusterPort;
  nodeName: string;
  /** Pod working directories are created below it. */
  workDir: string;
  log: Logger;
  /** Environment every pod process gets on top of its container env (e.g. the Chromium path). */
  baseEnv?: Record<string, string>;
  /** npm's cache for build pods; each project (namespace) gets a subfolder of its own. */
  npmCacheDir?: string;
  /** Run each pod in a sandbox of its own (unset: as plain process groups). */
  sandbox?: NodeSandbox;
  /** Seconds between SIGTERM and SIGKILL when a pod is stopped. */
  gracePeriodSeconds?: number;
  /** Verified artifacts kept on the node, handed to browser pods read-only (unset: each pod downloads its own). */
  artifactCache?: ArtifactCache;
  /** Told whether each handed-over artifact was already cached. */
  onArtifactCache?: (hit: boolean) => void;
  /** Told of each pod's output as it comes (chunks of lines), e.g. to show a handler's console live. */
  onPodOutput?: (pod: { namespace: string; name: string }, text: string) => void;
  /** Sandboxed pods with a network of their own reach the control plane's port through an entrance each (unset: the port itself). */
  entrances?: PodEntrances;
  /** Each pod's memory: its cgroup (unset cgroups: pods run unbounded, as the caller warned) and the defaults of its spec. */
  memory?: { cgroups?: MemoryCgroups; defaults: PodMemoryDefaults };
  /** Each pod's CPU cgroup (unset: pods share the server's, as the caller warned). */
  cpu?: CpuCgroups;
}

export interface NodeSandbox {
  network: SandboxNetwork;
  /** Host loopback ports pods reach on their own loopback (the control plane's). */
  forwardPorts: number[];
  /** Processes and threads one pod may have when it runs as a host user of its own (the agent is root). */
  maxProcesses?: number;
  /** Whether Chromium's own sandbox works inside ours. */
  chromiumSandbox: boolean;
  code: CodeMounts;
  /** Keep one sandbox ready for the next cold browser pod (spare-sandboxes.ts); with `pasta` only. */
  ahead?: boolean;
}

interface LocalPod {
  dir: string;
  processes?: PodProcesses;
  exited: Promise<number[]>;
  /** Settles once nothing of it runs and its folder, uid, address and cgroup are given back. */
  cleanedUp: Promise<void>;
  markCleanedUp: () => void;
  stopping: boolean;
  output: string[];
  /** Token refreshes of its projected volumes. */
  timers: NodeJS.Timeout[];
  /** Its own /etc/hosts (sandboxed pods that name Services). */
  hostsFile?: string;
  /** Its own way to the control plane (sandboxed pods with a network of their own). */
  entrance?: PodEntrance;
  /** Its memory cgroup, and whether it ran out of memory. */
  memory?: PodMemoryCgroup;
  outOfMemory?: boolean;
  /** Its cpu cgroup, and the CPU time it had used when it was last read for waitingMembersCpuMicros(). */
  cpu?: PodCpuCgroup;
  cpuReadMicros?: number;
  /** The folder that held more than its sizeLimit, for which the pod was evicted. */
  evictedFor?: LimitedFolder;
  /** The network or sandbox made ahead it took, with its host user and entrance (spare-networks.ts, spare-sandboxes.ts). */
  spare?: SpareNetwork | SpareSandbox;
}

/** Where build pods find their project's npm cache inside a sandbox. */
const SANDBOX_NPM_CACHE = '/npm-cache';
/** In the npm cache folder: the host-ids block this agent had last, so the projects' caches keep their owners. */
const HOST_IDS_MEMO = '.host-ids-block';
const LAUNCHER_MAIN = fileURLToPath(new URL('./pod-launcher-main.js', import.meta.url));
/** What of a pod's environment its agent prepares with in a sandbox made ahead (pod-handover.ts); a pod takes one made with the same. */
const AHEAD_ENV = ['PATH', 'TZ', 'NODE_ENV', PodEnv.podDir, 'BROWSERFN_RUNTIME_MODULES'];

export class NodeAgent {
  private readonly pods: Informer<PodObject>;
  private readonly local = new Map<string, LocalPod>();
  /** Uids of pods whose process ended here, so a late event does not mistake them for lost. */
  private readonly finished = new Set<string>();
  private stopped = false;
  private readonly registration: NodeRegistration;
  /** This agent's share of the host's uids and loopback addresses, held from start() to stop(). */
  private hostIds?: { ids: HostIds; uids: PodUids; addresses: PodAddresses };
  private readonly hostsFiles: PodHostsFiles;
  private readonly oomWatch = new OomWatch();
  private readonly diskWatch = new DiskWatch();
  private readonly commands: ContainerCommands;
  /** CPU time (µs) waiting pool members used, counted since the agent started. */
  private waitingCpuMicros = 0;
  private spareNetworks?: SpareKeeper<SpareNetwork>;
  private spareSandboxes?: SpareSandboxes;

  constructor(private readonly options: NodeAgentOptions) {
    this.pods = new Informer<PodObject>(options.cluster, Kinds.Pod, options.log);
    this.registration = new NodeRegistration(options.cluster, options.nodeName, options.log);
    this.hostsFiles = new PodHostsFiles(options.cluster, options.log);
    this.commands = new ContainerCommands(options.baseEnv);
  }

  async start(): Promise<void> {
    const ids = await claimHostIds(this.options.npmCacheDir && join(this.options.npmCacheDir, HOST_IDS_MEMO));
    this.hostIds = { ids, uids: new PodUids(ids.podUids), addresses: new PodAddresses(ids.loopbackOctet) };
    this.options.log.debug({ block: ids.block, podUids: ids.podUids, loopback: `127.${ids.loopbackOctet}.0.0/16` }, 'holding a block of host ids');
    await this.registration.start();
    const { sandbox, entrances, log } = this.options;
    if (sandbox) await removeSandboxesLeftAhead(this.options.workDir);
    // Sandboxed pods with a network of their own join one made ahead when one is ready.
    if (sandbox?.network === 'pasta') {
      const networks = new NetworkMaker({
        forwardPorts: sandbox.forwardPorts,
        entrances: this.usesEntrances() ? entrances : undefined,
        uids: runsAsRoot() ? this.hostIds.uids : undefined,
        log,
      });
      this.spareNetworks = new SpareKeeper(networks);
      this.spareNetworks.start();
      // Cold browser pods take a whole sandbox made ahead, in a network of its own.
      if (sandbox.ahead) {
        const launcher = [sandbox.code.node, sandbox.code.inside(LAUNCHER_MAIN)];
        this.spareSandboxes = new SpareSandboxes({ networks, workDir: this.options.workDir, codeMounts: sandbox.code.mounts, forwardPorts: sandbox.forwardPorts, maxProcesses: sandbox.maxProcesses, launcher, log });
      }
    }
    this.pods.addHandlers({
      onAdd: (pod) => {
        this.syncLogged(pod);
        this.hostsFiles.podChanged(pod);
      },
      onUpdate: (_old, pod) => {
        this.claimedCpu(pod);
        this.syncLogged(pod);
        this.hostsFiles.podChanged(pod);
      },
      onDelete: (pod) => {
        this.finished.delete(pod.metadata.uid ?? '');
        void this.stopPod(objectKey(pod));
        this.hostsFiles.podChanged(pod);
      },
    });
    this.pods.start();
    await this.pods.waitForSync();
  }

  /** Stops every local pod (SIGTERM, then SIGKILL after the grace period) and the watch. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.hostsFiles.stop();
    await this.pods.stop();
    await Promise.all([...this.local.keys()].map((key) => this.stopPod(key)));
    await Promise.all([this.spareNetworks?.close(), this.spareSandboxes?.close()]);
    this.options.memory?.cgroups?.close();
    this.options.cpu?.close();
    await this.registration.stop();
    await this.hostIds?.ids.release();
  }

  private get claimed(): { ids: HostIds; uids: PodUids; addresses: PodAddresses } {
    if (!this.hostIds) throw new Error('the node agent runs pods only once started');
    return this.hostIds;
  }

  /** Sandboxed pods with a network of their own reach the control plane through an entrance each. */
  private usesEntrances(): boolean {
    const { sandbox, entrances } = this.options;
    return sandbox?.network === 'pasta' && entrances !== undefined && sandbox.forwardPorts.includes(entrances.port);
  }

  get runningPods(): number {
    return this.local.size;
  }

  /** A pod's sync whose unforeseen failure is logged, never a crash of the process that hosts the agent. */
  private syncLogged(pod: PodObject): void {
    this.sync(pod).catch((err: unknown) => this.options.log.error({ pod: objectKey(pod), err: (err as Error).message }, 'could not sync a pod'));
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
    let markCleanedUp = () => {};
    const cleanedUp = new Promise<void>((resolve) => (markCleanedUp = resolve));
    const sandbox = this.options.sandbox;
    const npmCacheRoot = pod.metadata.labels?.[Labels.role] === Roles.buildPod ? this.options.npmCacheDir : undefined;
    const local: LocalPod = { dir, exited: Promise.resolve([]), cleanedUp, markCleanedUp, stopping: false, output: [], timers: [] };
    this.local.set(key, local);
    // Containers share the pod's loopback in a cluster and in a sandbox with its own network; on
    // the host's network the pod's fixed ports (CDP, the session proxy) become free ports of its own.
    const podEnv: Record<string, string> = {};
    const sharesHostNetwork = !sandbox || sandbox.network === 'host';
    let podIP: string | undefined;
    let containerEnvs: Record<string, string>[];
    let volumes: VolumeFolder[];
    try {
      rmSync(dir, { recursive: true, force: true });
      // As root, pods run as other users, who must be able to pass through the folders above theirs.
      mkdirSync(this.options.workDir, { recursive: true, mode: 0o711 });
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      for (const fixedPort of [PodEnv.cdpPort, PodEnv.proxyPort]) {
        const fixed = pod.spec.containers.some((c) => c.env?.some((e) => e.name === fixedPort && e.value !== '0'));
        if (sharesHostNetwork && fixed) podEnv[fixedPort] = String(await freePort());
      }
      podIP = sharesHostNetwork ? this.claimed.addresses.acquire() : undefined;
      if (podIP) podEnv[PodEnv.host] = podIP;
      const apiServer = this.options.cluster.podCredentials?.apiServer;
      if (apiServer && hasServiceAccountToken(pod)) {
        // As the kubelet's KUBERNETES_SERVICE_* variables: in-cluster clients find the API server there.
        podEnv.KUBERNETES_SERVICE_HOST = apiServer.hostname.replace(/^\[|\]$/g, '');
        podEnv.KUBERNETES_SERVICE_PORT = apiServer.port || '443';
      }
      const wait = { ...DEFAULT_SECRET_WAIT, cancelled: () => local.stopping };
      const ip = podIP;
      containerEnvs = await Promise.all(pod.spec.containers.map((c) => resolveContainerEnv(this.options.cluster, pod, c, wait, ip)));
      // A build shares its project's npm cache, and so its host user; the one made ahead would be another.
      if (sandbox && !npmCacheRoot && !local.stopping) this.takeMadeAhead(pod, containerEnvs, sandbox, local);
      volumes = this.volumeFolders(pod, dir);
      await this.fillProjectedVolumes(pod, volumes, local, podIP);
      if (this.usesEntrances()) local.entrance ??= await this.options.entrances!.openFor();
    } catch (err) {
      // As a kubelet that cannot prepare a pod (its config, its folder, an address): the pod does
      // not start, and says why, instead of staying Pending with nothing running.
      this.local.delete(key);
      this.finished.add(pod.metadata.uid ?? '');
      await this.releasePrepared(local, podIP);
      const [reason, message] = err instanceof ContainerConfigError ? [err.reason, err.message] : ['Error', `the node agent could not prepare the pod: ${(err as Error).message}`];
      if (!local.stopping) await this.setStatus(pod, { phase: 'Failed', reason, message });
      return;
    }
    const artifact = await this.cachedArtifact(pod, containerEnvs);
    if (sandbox) local.hostsFile = await this.hostsFiles.write(local, pod, podValues(pod, containerEnvs), dir);
    if (local.stopping) {
      // Deleted while it was being prepared (after the last wait above, nothing yields until its
      // processes run): nothing of it ran, and nothing of it stays.
      if (this.local.get(key) === local) this.local.delete(key);
      this.hostsFiles.forget(local);
      await this.releasePrepared(local, podIP);
      return;
    }
    const keep = (text: string) => {
      local.output.push(text);
      if (local.output.length > 50) local.output.shift();
      this.options.log.debug({ pod: key, output: text.trimEnd() }, 'pod output');
      this.options.onPodOutput?.({ namespace: pod.metadata.namespace ?? '', name: pod.metadata.name }, text);
    };
    const spare = local.spare;
    let uid = spare?.uid;
    try {
      const procsFiles = this.cgroupsOf(pod, local);
      const enter: EnterCgroup | undefined = procsFiles.length > 0 ? (command, user) => enterCgroups(procsFiles, command, user) : undefined;
      const npmCache = npmCacheRoot
        ? projectNpmCache(npmCacheRoot, pod.metadata.namespace ?? 'default', sandbox && runsAsRoot() ? this.claimed.ids.projectUids : undefined)
        : undefined;
      if (sandbox) {
        // Builds of a project share its npm cache, so they run as the cache's user; every other pod as its own.
        uid ??= runsAsRoot() ? (npmCache?.uid ?? this.claimed.uids.acquire()) : undefined;
        if (uid !== undefined) chownTree(dir, uid);
        if (artifact) podEnv[PodEnv.artifactFile] = SANDBOX_ARTIFACT_FILE;
        // The control plane's port leads to the pod's own entrance.
        const hostPorts = local.entrance && this.options.entrances ? { [this.options.entrances.port]: local.entrance.port } : undefined;
        const joined = spare && this.joinedCgroups(spare, procsFiles, key) ? spare : undefined;
        if (joined && 'sandbox' in joined) {
          // After the folder was given to the pod's user (chownTree above): the link shares the cached file, which stays the agent's.
          if (artifact) placeArtifact(dir, artifact);
          local.processes = joined.sandbox.launch(this.sandboxedContainers(pod, containerEnvs, sandbox, podEnv), true, keep);
        } else {
          const readOnly = artifact ? [{ source: artifact, target: SANDBOX_ARTIFACT_FILE }] : [];
          if (local.hostsFile) readOnly.push({ source: local.hostsFile, target: '/etc/hosts' });
          local.processes = this.startSandboxed(pod, containerEnvs, sandbox, volumes, readOnly, npmCache?.dir, podEnv, uid, keep, enter, hostPorts, joined);
        }
      } else {
        if (npmCache) podEnv[PodEnv.npmCache] = npmCache.dir;
        if (artifact) podEnv[PodEnv.artifactFile] = artifact;
        const localPath = localPathMapper(volumes);
        // The pod's own /tmp (an emptyDir under a read-only root in a cluster) is its folder here too.
        const tmp = volumes.find((v) => v.mountPath === '/tmp');
        if (tmp) podEnv.TMPDIR = tmp.folder;
        const containers = pod.spec.containers.map((c, i) => ({ ...this.commands.resolve(c, containerEnvs[i], podEnv, localPath), cwd: dir }));
        local.processes = startProcessGroups(containers, keep, enter);
      }
    } catch (err) {
      keep(`the pod could not start: ${(err as Error).message}`);
    }
    local.exited = local.processes?.exited ?? Promise.resolve(pod.spec.containers.map(() => 127));
    const processes = () => ({
      rootPids: (local.processes?.pids ?? []).filter((pid): pid is number => pid !== undefined),
      procsFile: local.memory ? join(local.memory.dir, 'cgroup.procs') : undefined,
    });
    this.diskWatch.watch(local, limitedFolders(pod, volumes), processes, (folder) => {
      local.evictedFor = folder;
      this.options.log.warn({ pod: key, volume: folder.name, sizeLimit: folder.sizeLimit }, 'pod wrote past a folder\'s size limit; evicted');
      local.processes?.kill();
    });
    this.options.log.debug({ pod: key, pids: local.processes?.pids, sandboxed: Boolean(sandbox), madeAhead: madeAhead(local.spare), uid }, 'pod started');
    const running: PodStatus = { phase: 'Running', startTime: new Date().toISOString(), podIP, podIPs: podIP ? [{ ip: podIP }] : undefined, conditions: [condition('Ready', false)] };
    void this.setStatus(pod, running).then(async () => {
      if (!local.processes || !(await waitUntilReady(pod.spec.containers, podIP, () => local.stopping || this.local.get(key) !== local))) return;
      await this.setStatus(pod, { ...running, conditions: [condition('Ready', true)] });
    });
    void local.exited.then(async (codes) => {
      try {
        this.finished.add(pod.metadata.uid ?? '');
        this.local.delete(key);
        this.hostsFiles.forget(local);
        this.diskWatch.unwatch(local);
        local.timers.forEach(clearTimeout);
        local.entrance?.close();
        await local.spare?.end();
        if (podIP) this.claimed.addresses.release(podIP);
        // Before anything is killed: processes waiting at the limit are the sign on cgroup v1, and leave with their kill.
        if (local.memory?.outOfMemory()) local.outOfMemory = true;
        killLeftovers(local);
        await removeFolder(dir);
        if (uid !== undefined) this.claimed.uids.release(uid);
        await this.releaseCgroups(local, key);
      } finally {
        local.markCleanedUp();
      }
      if (local.stopping) return;
      const ok = codes.every((code) => code === 0);
      const ended: PodStatus = local.outOfMemory ? outOfMemoryStatus(pod, local.memory!.limitBytes) : local.evictedFor ? evictedStatus(pod, local.evictedFor) : {
        phase: ok ? 'Succeeded' : 'Failed',
        reason: ok ? 'Completed' : 'Error',
        message: ok ? undefined : lastLines(local.output),
        containerStatuses: pod.spec.containers.map((c, i) => ({ name: c.name, state: { terminated: { exitCode: codes[i] ?? 1 } } })),
      };
      const status: PodStatus = { ...ended, conditions: [condition('Ready', false)] };
      this.options.log.debug({ pod: key, codes }, 'pod exited');
      const fresh = await this.options.cluster.resource<PodObject>(Kinds.Pod).get(pod.metadata.namespace, pod.metadata.name);
      if (fresh && fresh.metadata.uid === pod.metadata.uid) await this.setStatus(fresh, { ...fresh.status, ...status });
    });
  }

  /** Gives back what preparing a pod that never ran took: its token refreshes, entrance, address and folder. */
  private async releasePrepared(local: LocalPod, podIP: string | undefined): Promise<void> {
    local.timers.forEach(clearTimeout);
    local.entrance?.close();
    if (local.spare) {
      await local.spare.end();
      if (local.spare.uid !== undefined) this.claimed.uids.release(local.spare.uid);
    }
    if (podIP) this.claimed.addresses.release(podIP);
    await removeFolder(local.dir);
    local.markCleanedUp();
  }

  /**
   * What the pod takes of what was made ahead: a cold browser pod a sandbox of its shape, whose
   * folder becomes the pod's; any other pod (or none ready) a network.
   */
  private takeMadeAhead(pod: PodObject, containerEnvs: Record<string, string>[], sandbox: NodeSandbox, local: LocalPod): void {
    const shape = this.spareSandboxes && this.sandboxShape(pod, containerEnvs, sandbox);
    const ahead = shape && this.spareSandboxes!.take(shape);
    local.spare = ahead || this.spareNetworks?.take();
    local.entrance = local.spare?.entrance;
    if (!ahead) return;
    rmSync(local.dir, { recursive: true, force: true });
    renameSync(ahead.dir, local.dir);
  }

  /**
   * The shape of a sandbox made ahead (spare-sandboxes.ts) that the pod can take: a cold browser pod
   * whose one container is the pod agent, run in the launcher's process, with only emptyDir volumes.
   */
  private sandboxShape(pod: PodObject, containerEnvs: Record<string, string>[], sandbox: NodeSandbox): SandboxShape | undefined {
    const [command, ...others] = pod.spec.containers.map((c) => c.command ?? []);
    const agent = others.length === 0 && command[0] === 'browserfn' && command[1] === 'pod-agent';
    const poolMember = containerEnvs[0]?.[PodEnv.poolMember] === '1';
    if (!agent || poolMember || pod.metadata.labels?.[Labels.role] !== Roles.browserPod || (pod.spec.volumes ?? []).some((v) => v.projected)) return undefined;
    const [container] = this.sandboxedContainers(pod, containerEnvs, sandbox, {});
    const agentScript = inProcessScript({ containers: [container], inProcess: true }, sandbox.code.node);
    if (!agentScript) return undefined;
    const env = Object.fromEntries(AHEAD_ENV.filter((name) => container.env[name] !== undefined).map((name) => [name, container.env[name]]));
    const shmBytes = this.options.memory ? podShmBytes(pod, this.options.memory.defaults) : undefined;
    return { volumes: podVolumes(pod), shmBytes, agentScript, env };
  }

  /** The pod's containers as its sandbox runs them: paths inside it, and the pod's environment on top of their own. */
  private sandboxedContainers(pod: PodObject, containerEnvs: Record<string, string>[], sandbox: NodeSandbox, podEnv: Record<string, string>): LaunchedContainer[] {
    const env: Record<string, string> = { ...podEnv, PATH: sandbox.code.path };
    if (sandbox.chromiumSandbox) env[PodEnv.chromiumSandbox] = '1';
    return pod.spec.containers.map((c, i) => this.commands.resolve(c, containerEnvs[i], env, (value) => value, sandbox));
  }

  /** All containers of the pod in one sandbox: its volumes at their mount paths, the package code read-only. */
  private startSandboxed(
    pod: PodObject,
    containerEnvs: Record<string, string>[],
    sandbox: NodeSandbox,
    volumes: VolumeFolder[],
    readOnly: SandboxMount[],
    npmCacheDir: string | undefined,
    podEnv: Record<string, string>,
    uid: number | undefined,
    onOutput: (text: string) => void,
    enter: EnterCgroup | undefined,
    hostPorts: Record<number, number> | undefined,
    network: SpareNetwork | undefined,
  ): PodProcesses {
    const mounts: SandboxMount[] = [...sandbox.code.mounts, ...readOnly, ...volumes.map(({ folder, mountPath, readOnly: ro }) => ({ source: folder, target: mountPath, writable: !ro }))];
    const env: Record<string, string> = { ...podEnv };
    if (npmCacheDir) {
      mounts.push({ source: npmCacheDir, target: SANDBOX_NPM_CACHE, writable: true });
      env[PodEnv.npmCache] = SANDBOX_NPM_CACHE;
      // A build's npm reads the operator's config, which the sandbox keeps from every other pod.
      const operatorNpmrc = operatorGlobalConfig(process.env);
      if (existsSync(operatorNpmrc)) mounts.push({ source: operatorNpmrc, target: operatorNpmrc, writable: false });
    }
    const containers = this.sandboxedContainers(pod, containerEnvs, sandbox, env);
    const launcher = [sandbox.code.node, sandbox.code.inside(LAUNCHER_MAIN)];
    // The limit counts every task of the pod's host user, so it is set only when that user is not the server's.
    const maxProcesses = uid !== undefined ? sandbox.maxProcesses : undefined;
    const shmBytes = this.options.memory ? podShmBytes(pod, this.options.memory.defaults) : undefined;
    // An agent's start is on an invocation's or a build's path; a server's (`browserfn api`) is not, and keeps a process of its own.
    const inProcess = pod.spec.containers.length === 1 && this.commands.agentMainOf(pod.spec.containers[0].command) !== undefined;
    return startSandboxedPod(containers, { sandbox: { network: sandbox.network, forwardPorts: sandbox.forwardPorts, hostPorts, mounts, maxProcesses, shmBytes }, launcher, uid, gid: uid, enter, inProcess, network }, onOutput);
  }

  /**
   * The pod's own cgroups: memory at its limit, watched for running out of memory (then everything
   * of the pod is killed and it ends OOMKilled), and CPU at its share; returns the files its processes enter them by.
   */
  private cgroupsOf(pod: PodObject, local: LocalPod): string[] {
    const { cgroups, defaults } = this.options.memory ?? {};
    if (cgroups && defaults) {
      const memory = cgroups.create(basename(local.dir), podMemoryLimitBytes(pod, defaults));
      local.memory = memory;
      this.oomWatch.watch(memory, () => {
        local.outOfMemory = true;
        this.options.log.warn({ pod: objectKey(pod), limitBytes: memory.limitBytes }, 'pod ran out of memory; killed');
        local.processes?.kill();
      });
    }
    // Its labels as they are now: a member may have been claimed while it was being prepared.
    const current = this.pods.get(pod.metadata.namespace, pod.metadata.name) ?? pod;
    local.cpu = this.options.cpu?.create(basename(local.dir), podCpuShare(pod), isWaitingMember(current));
    return [...(local.memory ? [local.memory.procsFile] : []), ...(local.cpu?.procsFiles ?? [])];
  }

  /**
   * Moves a network made ahead (its pasta relays the pod's traffic) into the pod's cgroups, whose
   * memory and CPU it then counts toward. Memory it took before stays charged where it was made.
   * False: it could not be moved, is ended, and the pod starts a pasta of its own.
   */
  private joinedCgroups(spare: SpareNetwork | SpareSandbox, procsFiles: string[], key: string): boolean {
    try {
      const pids = 'sandbox' in spare ? spare.processes() : spare.pids;
      for (const file of new Set(procsFiles)) for (const pid of pids) writeFileSync(file, String(pid));
      return true;
    } catch (err) {
      this.options.log.warn({ pod: key, err: (err as Error).message }, 'could not move what was made ahead into the pod\'s cgroups; the pod starts its own');
      // At once: a sandbox's folder is the pod's now, which the pod's own sandbox binds next.
      if ('sandbox' in spare) spare.sandbox.kill();
      void spare.end();
      return false;
    }
  }

  /** A pool member claimed here leaves the idle class for its pod's own CPU share. */
  private claimedCpu(pod: PodObject): void {
    const cpu = this.local.get(objectKey(pod))?.cpu;
    if (!cpu?.waiting || isWaitingMember(pod)) return;
    try {
      cpu.setWaiting(false);
    } catch (err) {
      this.options.log.warn({ pod: objectKey(pod), err: (err as Error).message }, 'could not give a claimed member its CPU share');
    }
  }

  /**
   * CPU time (µs) the pool members waiting here have used since the agent started, read now: the
   * pools' CPU gate leaves it out, as that time is only what nothing else wanted (cpu-cgroups.ts).
   */
  waitingMembersCpuMicros(): number {
    for (const local of this.local.values()) {
      const used = local.cpu?.usedMicros();
      if (used === undefined) continue;
      if (local.cpu!.waiting && local.cpuReadMicros !== undefined) this.waitingCpuMicros += Math.max(0, used - local.cpuReadMicros);
      local.cpuReadMicros = used;
    }
    return this.waitingCpuMicros;
  }

  /** Whatever is left in the pod's cgroups is killed, and the cgroups removed. */
  private async releaseCgroups(local: LocalPod, key: string): Promise<void> {
    if (local.memory) this.oomWatch.unwatch(local.memory);
    await Promise.all(
      [local.memory, local.cpu].map((cgroup) => cgroup?.destroy().catch((err: unknown) => this.options.log.error({ pod: key, err: (err as Error).message }, 'a pod\'s processes outlived it'))),
    );
  }

  /**
   * A browser pod's artifact from the node's cache (fetched into it with the pod's own token when
   * missing); undefined leaves the download to the pod, as without a cache.
   */
  private async cachedArtifact(pod: PodObject, containerEnvs: Record<string, string>[]): Promise<string | undefined> {
    const cache = this.options.artifactCache;
    const env = containerEnvs.find((e) => e[PodEnv.artifactSha256] && e[PodEnv.podToken] && e[PodEnv.controlUrl]);
    if (!cache || !env || pod.metadata.labels?.[Labels.role] !== Roles.browserPod) return undefined;
    const sha256 = env[PodEnv.artifactSha256];
    try {
      const client = new ControlPlaneClient({ controlUrl: env[PodEnv.controlUrl], namespace: pod.metadata.namespace ?? 'default', podName: pod.metadata.name, podToken: env[PodEnv.podToken] });
      const { file, hit } = await cache.provide(sha256, (temp) => client.downloadArtifact(temp, sha256));
      this.options.onArtifactCache?.(hit);
      return file;
    } catch (err) {
      this.options.log.warn({ pod: objectKey(pod), sha256, err: (err as Error).message }, 'could not cache the artifact; the pod downloads it');
      return undefined;
    }
  }

  /** The pod's volumes (emptyDirs) are folders of the pod's folder. */
  private volumeFolders(pod: PodObject, dir: string): VolumeFolder[] {
    const folders = podVolumes(pod).map((volume) => ({ ...volume, folder: join(dir, volume.name) }));
    for (const { folder } of folders) mkdirSync(folder, { recursive: true, mode: 0o700 });
    return folders;
  }

  /** Fills each projected volume the pod mounts, and requests its token again before it expires. */
  private async fillProjectedVolumes(pod: PodObject, volumes: VolumeFolder[], local: LocalPod, podIP: string | undefined): Promise<void> {
    for (const volume of pod.spec.volumes ?? []) {
      const folder = volumes.find((v) => v.name === volume.name)?.folder;
      if (!volume.projected || !folder) continue;
      // Not once the pod has ended: its folder is gone and must stay so.
      const ended = () => local.stopping || this.local.get(objectKey(pod)) !== local;
      const refresh = async () => {
        if (ended()) return;
        const refreshMs = await fillProjectedVolume(this.options.cluster, pod, volume, folder, podIP);
        if (refreshMs === undefined || ended()) return;
        const timer = setTimeout(() => {
          local.timers = local.timers.filter((t) => t !== timer);
          refresh().catch((err: unknown) => this.options.log.warn({ pod: objectKey(pod), err: (err as Error).message }, 'could not refresh a projected ServiceAccount token'));
        }, refreshMs);
        timer.unref();
        local.timers.push(timer);
      };
      await refresh();
    }
  }

  private async stopPod(key: string): Promise<void> {
    const local = this.local.get(key);
    if (!local) return;
    local.stopping = true;
    local.processes?.terminate();
    const grace = (this.options.gracePeriodSeconds ?? 10) * 1000;
    const timer = setTimeout(() => local.processes?.kill(), grace);
    await local.exited;
    clearTimeout(timer);
    local.processes?.kill();
    killLeftovers(local);
    // A stopping agent leaves no pod folder behind for the next start to find.
    await local.cleanedUp;
  }

  /** Writes the pod's status on the stored pod, as long as it is still this pod (same uid). */
  private async setStatus(pod: PodObject, status: PodStatus): Promise<void> {
    const pods = this.options.cluster.resource<PodObject>(Kinds.Pod);
    let current: PodObject | undefined = pod;
    try {
      await retryOnConflict(
        async () => {
          if (!current || current.metadata.uid !== pod.metadata.uid) return;
          try {
            await pods.updateStatus({ ...current, status: { ...status } });
          } catch (err) {
            if (isConflict(err)) current = await pods.get(pod.metadata.namespace, pod.metadata.name);
            throw err;
          }
        },
        { retries: 4 },
      );
    } catch (err) {
      if (!isNotFound(err)) this.options.log.warn({ pod: pod.metadata.name, err: (err as Error).message }, 'pod status update failed');
    }
  }
}

type PodVolume = SandboxShape['volumes'][number];

/**
 * Kills whatever of the pod still runs, found by its folder: a sandbox made ahead's bwrap names the
 * folder it was made with, which became the pod's (the pod's processes end with its process group
 * and PID namespace; this is the net below them).
 */
function killLeftovers(local: LocalPod): void {
  killProcessesUnder(local.dir);
  if (local.spare && 'sandbox' in local.spare) killProcessesUnder(local.spare.dir);
}

/** What the pod took of what was made ahead, for the logs. */
function madeAhead(spare: LocalPod['spare']): 'sandbox' | 'network' | undefined {
  return spare && ('sandbox' in spare ? 'sandbox' : 'network');
}

/** The pod's volumes by mount path (the first mount of each path). */
function podVolumes(pod: PodObject): PodVolume[] {
  const seen = new Map<string, PodVolume>();
  const projected = new Set((pod.spec.volumes ?? []).filter((v) => v.projected).map((v) => v.name));
  for (const c of pod.spec.containers) {
    for (const m of c.volumeMounts ?? []) {
      // The sandbox makes /dev/shm a tmpfs of its own (unsandboxed pods share the host's).
      if (isShmVolume(pod, m.name)) continue;
      if (!seen.has(m.mountPath)) seen.set(m.mountPath, { name: m.name, mountPath: m.mountPath, readOnly: projected.has(m.name) || m.readOnly === true });
    }
  }
  return [...seen.values()];
}

/** Every value of the pod's containers that may name a Service: their environment, commands and arguments. */
function podValues(pod: PodObject, containerEnvs: Record<string, string>[]): string[] {
  return [...containerEnvs.flatMap((env) => Object.values(env)), ...pod.spec.containers.flatMap((c) => [...(c.command ?? []), ...(c.args ?? [])])];
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

function condition(type: string, ready: boolean): NonNullable<PodStatus['conditions']>[number] {
  return { type, status: ready ? 'True' : 'False', lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
}

function lastLines(output: string[]): string {
  return output.join('').split('\n').filter(Boolean).slice(-5).join('\n').slice(-2000);
}

/**
 * A pod's folder gone once it ended; one that cannot be removed (a broken data dir) must not stop
 * the agent. Off the event loop: a browser pod's folder (its Chromium profile) took 15-20 ms to
 * remove, which every request to the service waited behind.
 */
async function removeFolder(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    // Left behind; the next pod of the same name and uid prefix starts by removing it again.
  }
}
