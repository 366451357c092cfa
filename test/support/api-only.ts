// The façade alone over a fresh embedded store, as `browserfn api` runs it: no controllers, no node
// agent, so requests are judged without any pod starting. For tests of what the edge accepts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kinds } from '../../src/cluster/objects.js';
import { createLogger } from '../../src/config/logger.js';
import { loadSettings } from '../../src/config/settings.js';
import { startService, type RunningService } from '../../src/server/service.js';

export interface ApiOnlyService {
  url: string;
  apiKey: string;
  otherApiKey: string;
  service: RunningService;
  request<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T; text: string }>;
  /** Names of every Build and ConfigMap in the default project, sorted: what an upload leaves behind. */
  storedBuildObjects(): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startApiOnly(env: Record<string, string> = {}): Promise<ApiOnlyService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-api-'));
  const apiKey = 'api-key-' + Math.random().toString(36).slice(2);
  const otherApiKey = 'other-key-' + Math.random().toString(36).slice(2);
  let service: RunningService;
  try {
    const settings = loadSettings({ dataDir, port: 0, host: '127.0.0.1', env: { BROWSERFN_API_KEYS: `${apiKey}:default,${otherApiKey}:other`, ...env } });
    service = await startService(settings, { backend: 'embedded', api: true, controllers: false, nodeAgent: false, nodeName: 'none', image: 'browserfn:test' }, createLogger('silent'));
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: service.url,
    apiKey,
    otherApiKey,
    service,
    async request(method, path, body, headers = {}) {
      const init: RequestInit = { method, headers: { 'x-svc-api-key': apiKey, ...headers } };
      if (body instanceof FormData) init.body = body;
      else if (body !== undefined) {
        init.body = typeof body === 'string' ? body : body instanceof Uint8Array ? new Blob([new Uint8Array(body)]) : JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      }
      const response = await fetch(service.url + path, init);
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body: parsed as any, text };
    },
    async storedBuildObjects() {
      const builds = await service.cluster.resource(Kinds.Build).list('default');
      const configMaps = await service.cluster.resource(Kinds.ConfigMap).list('default');
      return [...builds.items.map((b) => `Build/${b.metadata.name}`), ...configMaps.items.map((c) => `ConfigMap/${c.metadata.name}`)].sort();
    },
    async stop() {
      try {
        await service.stop();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
