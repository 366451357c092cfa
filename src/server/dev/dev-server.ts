// `browserfn dev`: the `serve` stack in this process on a private data dir (store, pods, npm cache),
// the project published to it through the production build on start and on every change, and the
// hosted dev server's routes on 127.0.0.1 that invoke a Function by name and answer with its result.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { loadSettings } from '../../config/settings.js';
import type { Logger } from '../../config/logger.js';
import type { InvocationObject } from '../../schemas/resources.js';
import { findProjectRoot, isPacked } from '../../cli/pack.js';
import { Kinds } from '../../cluster/objects.js';
import { startStandalone } from '../standalone.js';
import type { ClusterPort } from '../../cluster/port.js';
import { consoleEcho, formatConsole } from './console-echo.js';
import { devRequestHandler } from './dev-http.js';
import { errorStack, invokeByName } from './dev-invoker.js';
import { DevPublisher } from './dev-publisher.js';
import { watchSources } from './source-watcher.js';
import { buildLoop } from './build-loop.js';
import { PodEnv } from '../../schemas/pod-env.js';

export const DEFAULT_DEV_PORT = 14113;

export interface DevServerOptions {
  entry: string;
  port: number;
  host: string;
  secretsFile?: string;
  /** The secrets file is the default one: read while it exists, which it may only later. */
  secretsFileOptional?: boolean;
  /** Default: a folder of this project under the system's temp folder, kept between runs (npm cache). */
  dataDir?: string;
  /** The service's settings come from it as for `serve`, but for the data dir, address and API keys. */
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** The terminal. */
  out: (line: string) => void;
  debounceMs?: number;
}

export interface RunningDevServer {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

export async function startDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  const entry = resolve(options.entry);
  const root = findProjectRoot(entry);
  const dataDir = resolve(options.dataDir ?? join(tmpdir(), `browserfn-dev-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`));
  const settings = loadSettings({ dataDir, port: 0, host: '127.0.0.1', env: devEnv(options.env) });
  const project = settings.apiKeys[0].project;

  // Lines are labelled with their Function, found from the pod that runs it (a cold pod or a claimed pool member), in order.
  let cluster: ClusterPort | undefined;
  const functionOfPod = new Map<string, string>();
  const labelOf = async (pod: string): Promise<string> => {
    if (!functionOfPod.has(pod) && cluster) {
      const { items } = await cluster.resource<InvocationObject>(Kinds.Invocation).list(project);
      for (const inv of items) if (inv.status?.podName) functionOfPod.set(inv.status.podName, inv.spec.functionName);
    }
    return functionOfPod.get(pod) ?? pod;
  };
  let printed = Promise.resolve();
  const echo = consoleEcho((line) => {
    printed = printed.then(async () => options.out(formatConsole(line, await labelOf(line.pod).catch(() => line.pod))));
  });
  const service = await startStandalone(settings, options.log, { podEnv: { [PodEnv.echoConsole]: '1' }, onPodOutput: echo });
  cluster = service.cluster;
  const publisher = new DevPublisher({ cluster: service.cluster, project, entry, maxArchiveBytes: settings.maxArchiveBytes, secretsFile: options.secretsFile, secretsFileOptional: options.secretsFileOptional });
  if (options.secretsFile && isPacked(root, options.secretsFile)) {
    options.out(`Warning: ${relative(root, options.secretsFile)} is inside the project and not ignored: dev builds leave it out, but \`browserfn publish\` would upload it. Add it to .gitignore.`);
  }
  const invoker = {
    cluster: service.cluster,
    archive: service.archive,
    project,
    publisher,
    invokeContext: { maxQueuedPerProject: settings.projectQueue.maxQueued, waiting: service.waitingInvocations, operatorProxy: settings.browserProxy !== undefined },
    onCreated: (inv: InvocationObject) => options.out(`→ ${inv.spec.functionName}: invocation ${inv.metadata.name}`),
  };
  const server = createServer(
    devRequestHandler(
      async (name, request, abandoned) => {
        const done = await invokeByName(invoker, name, request, abandoned);
        const status = done.status ?? {};
        options.out(status.phase === 'COMPLETED' ? `✓ ${name} completed` : `✗ ${name} failed: ${status.cause?.code}: ${status.cause?.message ?? ''}`);
        return { invocation: done, stackTrace: status.phase === 'FAILED' ? await errorStack(invoker, done) : [] };
      },
      (err) => options.log.error({ err }, 'dev request failed'),
    ),
  );
  try {
    await listen(server, options.port, options.host);
  } catch (err) {
    await service.stop();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host}:${port}`;
  options.out(`browserfn dev listening on ${url} (data in ${dataDir})`);
  if (service.podIsolation) options.out(service.podIsolation);

  const builds = buildLoop(publisher, options.out);
  builds.request('start');
  const watcher = watchSources({
    root,
    extraFiles: options.secretsFile ? [options.secretsFile] : [],
    debounceMs: options.debounceMs,
    onChange: (paths) => builds.request(paths.slice(0, 3).join(', ') + (paths.length > 3 ? ` and ${paths.length - 3} more` : '')),
  });

  return {
    url,
    dataDir,
    async stop() {
      watcher.close();
      // A build under way is not waited for: it ends with the service, unreported.
      builds.close();
      const closed = new Promise<void>((done) => server.close(() => done()));
      server.closeAllConnections();
      await closed;
      await service.stop();
    },
  };
}


/** The environment's settings, without what would point dev elsewhere than its own private service. */
const NOT_FOR_DEV = ['BROWSERFN_API_KEY', 'BROWSERFN_API_KEYS', 'BROWSERFN_DATA_DIR', 'BROWSERFN_CONTROL_URL', 'PORT', 'BROWSERFN_HOST'];

/**
 * Pods on the host's network unless the environment says otherwise: the developer's handler runs
 * their own code against their own pages (`localhost:3000`), as `bb dev` runs it on the host.
 */
const DEV_DEFAULTS = { BROWSERFN_SANDBOX_NETWORK: 'host' };

function devEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...DEV_DEFAULTS, ...Object.fromEntries(Object.entries(env).filter(([name]) => !NOT_FOR_DEV.includes(name))) };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolveListen, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new Error(`Port ${port} is already in use (--port)`) : err));
    server.listen(port, host, () => resolveListen());
  });
}
