// `browserfn serve`: the façade, the controllers and the local node agent in one process, over the
// embedded store. Pods run as local processes; user code still runs only inside them.
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApp } from '../api/app.js';
import { functionRoutes, internalRoutes } from '../api/routes/index.js';
import { fetchRoutes } from '../api/routes/fetch.js';
import { secretRoutes } from '../api/routes/secrets/index.js';
import type { ClusterPort } from '../cluster/port.js';
import { openEmbeddedCluster } from '../cluster/embedded/index.js';
import type { Settings } from '../config/settings.js';
import { createLogger, type Logger } from '../config/logger.js';
import { Metrics } from '../config/metrics.js';
import { createControllerManager } from '../controller/setup.js';
import type { Manager } from '../controller/runtime/manager.js';
import { NodeAgent } from '../runtime/node-agent/agent.js';

export const LOCAL_NODE_NAME = 'local';

export interface Standalone {
  url: string;
  cluster: ClusterPort;
  metrics: Metrics;
  stop(): Promise<void>;
}

export async function startStandalone(settings: Settings, log: Logger = createLogger()): Promise<Standalone> {
  const cluster = await openEmbeddedCluster({ file: join(settings.dataDir, 'store.db'), encryptionKey: storeKey(settings.dataDir) });
  const metrics = new Metrics();
  const deps = { settings, cluster, log, metrics };
  let manager: Manager | undefined;
  let nodeAgent: NodeAgent | undefined;
  let ready = false;

  const app = createApp(deps, { routes: [...functionRoutes, ...secretRoutes, ...fetchRoutes(), ...internalRoutes], isReady: () => ready });
  const server = createServer(app.callback());
  await listen(server, settings.port, settings.host);
  const { port } = server.address() as AddressInfo;
  const reachableHost = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  const url = `http://${reachableHost.includes(':') ? `[${reachableHost}]` : reachableHost}:${port}`;

  try {
    nodeAgent = new NodeAgent({
      cluster,
      nodeName: LOCAL_NODE_NAME,
      workDir: join(settings.dataDir, 'pods'),
      log,
      baseEnv: { BROWSERFN_CHROMIUM_PATH: settings.chromiumPath, BROWSERFN_NPM_CACHE: settings.npmCacheDir },
    });
    await nodeAgent.start();
    manager = createControllerManager({
      cluster,
      templates: { nodeName: LOCAL_NODE_NAME, controlUrl: settings.controlUrl ?? url, podTokenSecret: settings.podTokenSecret, image: 'browserfn:local' },
      maxConcurrentInvocations: settings.maxConcurrentInvocations,
      maxConcurrentBuilds: settings.maxConcurrentBuilds,
      metrics,
      log,
    });
    await manager.start();
    ready = true;
  } catch (err) {
    await stopAll();
    throw err;
  }

  async function stopAll(): Promise<void> {
    ready = false;
    // API first: pods stopped below then cannot report, so their invocations are retried on the next start.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    await manager?.stop();
    await nodeAgent?.stop();
    await cluster.close();
  }

  return { url, cluster, metrics, stop: stopAll };
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

/** The key that encrypts Secret data at rest, made once per data dir. */
function storeKey(dataDir: string): Buffer {
  const path = join(dataDir, 'store.key');
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(path)) writeFileSync(path, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${path} must hold 32 base64-encoded bytes`);
  return key;
}
