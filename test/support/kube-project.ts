// One test project on the real control plane: its namespace, node name, API key and data dir, the
// services a test starts for it (façade, controllers, node agent, in any split), a client of its
// façade, and the clean-up that leaves nothing behind.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../../src/config/settings.js';
import { createLogger } from '../../src/config/logger.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/server/service.js';
import { ensureControlPlane, kubectl, type ControlPlane } from './controlplane.js';
import { assertNoProcessesUnder } from './processes.js';
import type { TestService } from './service.js';
import { apiClient } from './api-client.js';

/**
 * An in-process operator that loses its lease stops, as a replica does, but must not exit the test
 * runner (the service's default): it says so, and the test that needed it fails on what it waits for.
 */
export function reportLeadershipLost(): void {
  console.error('\n*** an in-process operator lost its controller lease and stopped ***\n');
}

export interface KubeProject {
  plane: ControlPlane;
  project: string;
  nodeName: string;
  dataDir: string;
  apiKey: string;
  /** The environment every service of the project starts with. */
  env: Record<string, string>;
  /** Starts some parts of browserfn for the project (nothing unless asked for). */
  start(parts: Partial<ServiceOptions>, options?: { port?: number; env?: Record<string, string> }): Promise<RunningService>;
  stopService(service: RunningService): Promise<void>;
  /** A client of the façade at `url()` with the project's key. */
  client(url: () => string): TestService;
  /** Stops every service still running, deletes the namespace and the node, checks no process is left. */
  cleanUp(): Promise<void>;
}

/**
 * Makes the project's namespace on the control plane, or says why there is none: `no-go` when the
 * control plane cannot exist on this machine (the suite skips, saying so), an error when it failed.
 */
export async function kubeProject(prefix: string): Promise<KubeProject | { skip: string }> {
  const plane = await ensureControlPlane();
  if (plane.state === 'no-go') return { skip: plane.reason };
  if (plane.state === 'failed') throw new Error(`the test control plane did not start: ${plane.reason}`);
  const project = `${prefix}-${randomBytes(3).toString('hex')}`;
  const nodeName = `node-${project}`;
  const dataDir = mkdtempSync(join(tmpdir(), `browserfn-${prefix}-`));
  const apiKey = `key-${randomBytes(8).toString('hex')}`;
  // Pods stay sandboxed, on the host's network: the tests' servers listen on 127.0.0.1.
  const env = {
    BROWSERFN_API_KEYS: `${apiKey}:${project}`,
    BROWSERFN_POD_TOKEN_SECRET: randomBytes(24).toString('hex'),
    BROWSERFN_NPM_CACHE: join(tmpdir(), 'browserfn-test-npm-cache'),
    BROWSERFN_SANDBOX_NETWORK: 'host',
    BROWSERFN_WARM_POOL_SIZE: '0',
  };
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const running: RunningService[] = [];
  const ns = await kubectl(['create', 'namespace', project]);
  assert.equal(ns.code, 0, ns.stderr);

  return {
    plane,
    project,
    nodeName,
    dataDir,
    apiKey,
    env,
    async start(parts, options = {}) {
      const service = await startService(
        loadSettings({ dataDir, port: options.port ?? 0, host: '127.0.0.1', env: { ...env, ...options.env } }),
        { backend: 'kube', kubeconfigPath: plane.kubeconfigPath, api: false, controllers: false, nodeAgent: false, nodeName, image: 'browserfn:test', onLeadershipLost: reportLeadershipLost, ...parts },
        log,
      );
      running.push(service);
      return service;
    },
    async stopService(service) {
      running.splice(running.indexOf(service), 1);
      await service.stop();
    },
    client: (url) => apiClient(url, () => apiKey),
    async cleanUp() {
      for (const service of [...running].reverse()) await service.stop().catch(() => undefined);
      await kubectl(['delete', 'namespace', project, '--wait=false']);
      await kubectl(['delete', 'node', nodeName, '--wait=false']);
      if (plane.startedHere) await plane.stop();
      try {
        await assertNoProcessesUnder(dataDir, 'the services stopped');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
