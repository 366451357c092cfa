// The composition root: which parts of browserfn run in this process, over which backend.
//   serve    = façade + controllers + local node agent (embedded store, or --backend kube)
//   operator = controllers (Lease-elected) + probes and metrics
//   api      = façade
// User code never runs here: only in the build and browser pods the node agent or kubelet starts.
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApp } from '../api/app.js';
import { functionRoutes, internalRoutes } from '../api/routes/index.js';
import { fetchRoutes } from '../api/routes/fetch.js';
import { FetchService } from '../fetch/fetch-service.js';
import { loadFetchSettings } from '../fetch/settings.js';
import { buildLimits } from '../build/build-limits.js';
import { secretRoutes } from '../api/routes/secrets/index.js';
import { liveViewRoutes } from '../api/routes/sessions/live-view-routes.js';
import { LiveHub } from '../api/live-view/live-hub.js';
import { LiveLocator } from '../api/live-view/live-locator.js';
import { acceptLiveViewUpgrades } from '../api/live-view/live-upgrade.js';
import { webhookRoutes } from '../api/routes/webhooks/index.js';
import { loadWebhookSettings } from '../webhooks/settings.js';
import { WebhookSender } from '../webhooks/sender.js';
import type { RouteDefinition } from '../api/route.js';
import type { ClusterPort } from '../cluster/port.js';
import { openEmbeddedCluster } from '../cluster/embedded/index.js';
import { openKubeCluster } from '../cluster/kube/index.js';
import type { Settings } from '../config/settings.js';
import { createLogger, type Logger } from '../config/logger.js';
import { Metrics } from '../config/metrics.js';
import { PodEntranceListeners } from './pod-entrances.js';
import { createControllerManager } from '../controller/setup.js';
import type { Manager } from '../controller/runtime/manager.js';
import { Informer } from '../controller/runtime/informer.js';
import { NodeAgent } from '../runtime/node-agent/node-agent.js';
import { CpuUse } from '../runtime/node-agent/cpu-use.js';
import { ArtifactCache } from '../runtime/node-agent/artifact-cache.js';
import { openArtifactStore } from '../artifacts/open.js';
import type { Archive } from '../functions/archived/archive.js';
import { WaitingInvocations } from '../functions/waiting-invocations.js';
import { Kinds } from '../cluster/objects.js';
import type { InvocationObject } from '../schemas/resources.js';
import { PodEnv } from '../schemas/pod-env.js';
import { systemClock } from '../controller/runtime/clock.js';
import { assertProjectsIsolated, decideNodeSandbox, describeIsolation, openDataDirForPodUsers } from './node-sandbox.js';
import { limitConnections } from './connection-limits.js';
import { continueOnlyWhenBodyIsRead } from '../api/expect-continue.js';
import { decideNodeMemory } from './node-memory.js';
import { decideNodeCpu } from './node-cpu.js';

const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface ServiceOptions {
  backend: 'embedded' | 'kube';
  /** kube backend: a kubeconfig file (default loading rules when absent, in-cluster inside a pod). */
  kubeconfigPath?: string;
  api: boolean;
  controllers: boolean;
  /** Run pods bound to `nodeName` as local processes. */
  nodeAgent: boolean;
  nodeName: string;
  /**
   * Bind build and browser pods to this node instead of leaving them to a scheduler (a control
   * plane without one, like the test control plane). Defaults to nodeName when this process runs
   * the node agent.
   */
  podNodeName?: string;
  /** Elect one active controller set through a Lease in this namespace (operator replicas). */
  leaseNamespace?: string;
  /** Called once the service has stopped after losing the lease (default: exit 1, for a fresh process to compete again). */
  onLeadershipLost?: () => void;
  /** Image of build and browser pods (kube). */
  image: string;
  /** Environment every local pod gets besides the usual (the local node agent's pods). */
  podEnv?: Record<string, string>;
  /** Each local pod's output as it comes (see NodeAgentOptions.onPodOutput). */
  onPodOutput?: (pod: { namespace: string; name: string }, text: string) => void;
}

export interface RunningService {
  /** The address this process serves (API, or probes and metrics only). */
  url: string;
  cluster: ClusterPort;
  metrics: Metrics;
  manager?: Manager;
  /** How the local node agent isolates pods (unset without one). */
  podIsolation?: string;
  /** Where finished records are archived (use cases that read or change them take it). */
  archive: Archive;
  /** Counts each project's waiting invocations for the queue cap (the dev server's invokes take it too). */
  waitingInvocations: WaitingInvocations;
  stop(): Promise<void>;
}

export async function startService(settings: Settings, options: ServiceOptions, log: Logger = createLogger()): Promise<RunningService> {
  // Before the cluster: opening it only checks the settings and makes the folder, so a failure here leaves nothing open.
  const artifacts = await openArtifactStore(settings.artifactStore);
  const cluster =
    options.backend === 'kube'
      ? await openKubeCluster({ kubeconfigPath: options.kubeconfigPath })
      : await openEmbeddedCluster({ file: join(settings.dataDir, 'store.db'), encryptionKey: storeKey(settings.dataDir), sync: settings.storeSync });
  const metrics = new Metrics();
  if (options.backend === 'kube' && artifacts.backend === 'filesystem') {
    log.warn({ dir: settings.artifactStore.kind === 'filesystem' ? settings.artifactStore.dir : undefined }, 'archived records are kept on this process\'s filesystem: every API and operator replica must see the same folder (or set BROWSERFN_ARTIFACT_STORE=s3)');
  }
  const archive: Archive = { store: artifacts, retentionMs: settings.retention.retentionDays * 86_400_000, now: systemClock };
  const waitingInvocations = new WaitingInvocations(cluster);
  const deps = { settings, cluster, log, metrics, archive, waitingInvocations };
  let manager: Manager | undefined;
  /** The façade's own cache of Invocations, when no controllers run here to share theirs. */
  let invocationCache: Informer<InvocationObject> | undefined;
  let webhookSender: WebhookSender | undefined;
  let nodeAgent: NodeAgent | undefined;
  let nodeCpu: CpuUse | undefined;
  let podIsolation: string | undefined;
  let ready = false;

  // Feature settings are parsed here, at start, so a bad value stops the service with a clear message.
  const fetchService = options.api ? new FetchService(loadFetchSettings(settings.featureEnv.fetch)) : undefined;
  buildLimits(settings.featureEnv.buildPods);
  const liveView = options.api ? new LiveLocator(new LiveHub(), deps) : undefined;
  const webhookSettings = loadWebhookSettings(settings.featureEnv.webhooks);
  const routes: RouteDefinition[] =
    fetchService && liveView
      ? [...functionRoutes, ...liveViewRoutes(liveView), ...secretRoutes, ...webhookRoutes({ settings: webhookSettings }), ...fetchRoutes({ service: fetchService }), ...internalRoutes]
      : [];
  const app = createApp(deps, { routes, isReady: () => ready });
  // Idle keep-alive connections are closed by clients first (undici after 4 s, load balancers after
  // 60 s), never by the server as a client reuses one: with Node's 5 s, a busy event loop fired the
  // server's timer just as the next request went out, which then failed with a connection reset.
  const handle = app.callback();
  const server = createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, headersTimeout: KEEP_ALIVE_TIMEOUT_MS + 1000 }, handle);
  continueOnlyWhenBodyIsRead(server, handle);
  limitConnections(server, settings.maxConnectionsPerClient);
  const upgrades = liveView ? acceptLiveViewUpgrades(server, liveView, deps) : undefined;
  await listen(server, settings.port, settings.host);
  const { port } = server.address() as AddressInfo;
  const entrances = new PodEntranceListeners(server, port);
  const reachableHost = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  const url = `http://${reachableHost.includes(':') ? `[${reachableHost}]` : reachableHost}:${port}`;
  // Other API replicas reach this one at its pod's address, to serve live views whose pod dialled here.
  liveView?.announceAs(settings.podIP ? `http://${settings.podIP.includes(':') ? `[${settings.podIP}]` : settings.podIP}:${port}` : undefined);

  async function stop(): Promise<void> {
    ready = false;
    // API first: pods stopped below then cannot report, so their invocations are retried on the next start.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    entrances.closeAll();
    liveView?.hub.closeAll();
    upgrades?.closeAll();
    server.closeAllConnections();
    await closed;
    await fetchService?.close();
    await manager?.stop();
    await invocationCache?.stop();
    await webhookSender?.close();
    await nodeAgent?.stop();
    nodeCpu?.stop();
    await cluster.close();
    await artifacts.close();
  }

  try {
    if (options.nodeAgent) {
      const decision = await decideNodeSandbox(settings, settings.controlUrl ?? url);
      if (options.api) assertProjectsIsolated(settings, decision);
      const memory = decideNodeMemory(settings.podMemory, log);
      const cpu = decideNodeCpu(memory.memory.cgroups, log);
      podIsolation = `${describeIsolation(decision)}; ${memory.description}; ${cpu.description}`;
      if (decision.openedForPodUsers.length > 0) log.warn({ folders: decision.openedForPodUsers }, 'made folders passable (o+x) for pod users, who must reach what their sandboxes mount');
      if (decision.sandbox) openDataDirForPodUsers(settings.dataDir);
      else log.warn({ reason: decision.reason }, 'pods run unsandboxed: as the server\'s user, on its network and files');
      nodeAgent = new NodeAgent({
        cluster,
        nodeName: options.nodeName,
        workDir: join(settings.dataDir, 'pods'),
        log,
        baseEnv: { ...options.podEnv, [PodEnv.chromiumPath]: settings.chromiumPath },
        npmCacheDir: settings.npmCacheDir,
        sandbox: decision.sandbox,
        memory: memory.memory,
        cpu: cpu.cgroups,
        entrances,
        artifactCache: settings.artifactCacheBytes > 0 ? new ArtifactCache(join(settings.dataDir, 'artifact-cache'), settings.artifactCacheBytes) : undefined,
        onArtifactCache: (hit) => metrics.artifactCache.inc({ result: hit ? 'hit' : 'miss' }),
        onPodOutput: options.onPodOutput,
      });
      await nodeAgent.start();
      const agent = nodeAgent;
      nodeCpu = new CpuUse({ idleClassMicros: () => agent.waitingMembersCpuMicros() });
      if (!nodeCpu.start()) nodeCpu = undefined;
    }
    if (options.controllers) {
      if (!options.api && !settings.controlUrl) {
        throw new Error('Set BROWSERFN_CONTROL_URL to the address of the browserfn API: pods report there');
      }
      webhookSender = new WebhookSender(webhookSettings);
      manager = createControllerManager({
        cluster,
        templates: {
          nodeName: options.podNodeName ?? (options.nodeAgent ? options.nodeName : undefined),
          controlUrl: settings.controlUrl ?? url,
          podTokenSecret: settings.podTokenSecret,
          image: options.image,
          chromiumSidecar: options.backend === 'kube',
          chromiumPath: settings.chromiumPath,
          buildPodEnv: settings.featureEnv.buildPods,
          browserMemory: { limit: `${settings.podMemory.limitMiB}Mi`, shm: `${settings.podMemory.shmMiB}Mi` },
          browserDisk: `${settings.podMemory.diskMiB}Mi`,
        },
        maxConcurrentInvocations: settings.maxConcurrentInvocations,
        maxRunningInvocationsPerProject: settings.projectQueue.maxRunning,
        maxConcurrentBuilds: settings.maxConcurrentBuilds,
        warmPool: settings.warmPool,
        nodeCpuBusyFraction: nodeCpu?.busyFraction.bind(nodeCpu),
        webhooks: { settings: webhookSettings, sender: webhookSender },
        retention: {
          archive,
          finishedTtlMs: settings.retention.finishedTtlSeconds * 1000,
          keepVersions: settings.retention.keepVersions,
          sweepIntervalMs: settings.retention.sweepIntervalSeconds * 1000,
          clock: systemClock,
        },
        metrics,
        log,
        namespaces: settings.watchNamespaces,
        leaderElection: options.leaseNamespace
          ? {
              namespace: options.leaseNamespace,
              name: 'browserfn-controllers',
              identity: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
              leaseDurationSeconds: settings.lease.durationSeconds,
              renewDeadlineSeconds: settings.lease.renewDeadlineSeconds,
              retryPeriodSeconds: settings.lease.retryPeriodSeconds,
            }
          : undefined,
      });
      waitingInvocations.readFrom(manager.informerFor<InvocationObject>(Kinds.Invocation));
      const started = manager
        .start(() => {
          log.error('lost the controller lease; stopping so a fresh process can compete again');
          void stop().finally(options.onLeadershipLost ?? (() => process.exit(1)));
        })
        .then(() => {
          ready = true;
        });
      // Replicas that do not lead wait for the lease in the background; probes answer meanwhile.
      if (options.leaseNamespace) started.catch((err: unknown) => log.error({ err }, 'controllers failed to start'));
      else await started;
    } else {
      if (options.api) {
        invocationCache = new Informer<InvocationObject>(cluster, Kinds.Invocation, log, { namespaces: settings.watchNamespaces });
        waitingInvocations.readFrom(invocationCache);
        invocationCache.start();
      }
      ready = true;
    }
  } catch (err) {
    await stop();
    throw err;
  }

  return { url, cluster, metrics, manager, podIsolation, archive, waitingInvocations, stop };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The key that encrypts Secret data at rest in the embedded store, made once per data dir. */
function storeKey(dataDir: string): Buffer {
  const path = join(dataDir, 'store.key');
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(path)) writeFileSync(path, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${path} must hold 32 base64-encoded bytes`);
  return key;
}
