// Starts the real `browserfn serve` stack in-process on 127.0.0.1:0 with a fresh data dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../../src/config/settings.js';
import { createLogger } from '../../src/config/logger.js';
import { startStandalone } from '../../src/server/standalone.js';
import type { RunningService } from '../../src/server/service.js';
import { assertNoProcessesUnder } from './processes.js';
import { captureLog } from './log-capture.js';

export interface TestService {
  url: string;
  dataDir: string;
  apiKey: string;
  /** The bearer token /metrics asks for. */
  metricsToken: string;
  service: RunningService;
  /** The service's log lines (server, controllers, node agent and, at debug, every pod's own output) when started with `captureLog`. */
  logLines: string[];
  /** Stops and starts again on the same data dir (a process restart); fails if a pod's process outlives the stop. */
  restart(): Promise<void>;
  /** Stops, fails if a pod's process (Chromium, pod or build agent, user code) outlives it, and removes the data dir. */
  stop(): Promise<void>;
  request<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T }>;
  /** The Prometheus text of /metrics, read with the metrics token. */
  metrics(): Promise<string>;
}

export interface TestServiceOptions {
  /** Keep the service's log at debug level in `logLines` instead of discarding it. */
  captureLog?: boolean;
}

export async function startTestService(env: Record<string, string> = {}, options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-test-'));
  const apiKey = 'test-key-' + Math.random().toString(36).slice(2);
  const metricsToken = 'test-metrics-' + Math.random().toString(36).slice(2).padEnd(12, '0');
  // One npm cache for every test service, so dependency installs in builds hit the registry once.
  // Pods stay sandboxed, but on the host's network: the tests' page servers listen on 127.0.0.1,
  // which a pod's own network cannot reach (test/attack/sandbox.test.ts checks that default).
  // Warm pools are off unless a test turns them on: most suites count, find or kill the processes of
  // the pods they start, which idle members would join (warm-pools.test.ts and the corpus run with pools).
  const fullEnv = { BROWSERFN_API_KEYS: `${apiKey}:default,other-key:other`, BROWSERFN_NPM_CACHE: join(tmpdir(), 'browserfn-test-npm-cache'), BROWSERFN_SANDBOX_NETWORK: 'host', BROWSERFN_WARM_POOL_SIZE: '0', BROWSERFN_METRICS_TOKEN: metricsToken, ...env };
  const captured = options.captureLog ? captureLog('debug') : undefined;
  const log = captured?.log ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const boot = () => startStandalone(loadSettings({ dataDir, port: 0, host: '127.0.0.1', env: fullEnv }), log);
  let service = await boot();
  const handle: TestService = {
    get url() {
      return service.url;
    },
    dataDir,
    apiKey,
    metricsToken,
    logLines: captured?.lines ?? [],
    get service() {
      return service;
    },
    async restart() {
      await service.stop();
      await assertNoProcessesUnder(dataDir, 'the service stopped for a restart');
      service = await boot();
    },
    async stop() {
      try {
        await service.stop();
        await assertNoProcessesUnder(dataDir, 'the service stopped');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    async request(method, path, body, headers = {}) {
      const init: RequestInit = { method, headers: { 'x-svc-api-key': apiKey, ...headers } };
      if (body instanceof FormData) init.body = body;
      else if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      }
      const response = await fetchRetryingReset(service.url + path, init);
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body: parsed as any };
    },
    async metrics() {
      const response = await fetchRetryingReset(service.url + '/metrics', { headers: { authorization: `Bearer ${metricsToken}` } });
      if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${await response.text()}`);
      return response.text();
    },
  } as TestService;
  return handle;
}

/**
 * A GET whose kept-alive connection the server closed as it was reused (ECONNRESET) is sent once
 * more, as HTTP clients do for idempotent requests: with client and server in one busy process,
 * the server's keep-alive timer can fire late, just as the next request goes out.
 */
async function fetchRetryingReset(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const reset = (err as { cause?: { code?: string } }).cause?.code === 'ECONNRESET';
    if (!reset || (init.method ?? 'GET') !== 'GET') throw err;
    return fetch(url, init);
  }
}

/** Polls until `check` returns a value, at most `timeoutMs`; the test fails with `what` otherwise. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
