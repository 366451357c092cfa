// Runs `browserfn dev` as the user would (a child process of the built CLI) on a free port and a
// data dir of its own, and reads its terminal.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertNoProcessesUnder } from './processes.js';
import { waitFor } from './service.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface DevProcess {
  url: string;
  dataDir: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the first line matching, printed after `from` characters of output. */
  line(pattern: RegExp, from?: number, timeoutMs?: number): Promise<string>;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; text: string; body: any }>;
  /** SIGTERM; fails if a pod's process outlives it. */
  stop(): Promise<void>;
}

export async function startDev(root: string, entry: string, args: string[] = [], env: Record<string, string> = {}): Promise<DevProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-dev-test-'));
  // As the test services: a shared npm cache, no warm pool; pods on the host's network, dev's default (the tests' page servers are on 127.0.0.1).
  const { BROWSERFN_SANDBOX_NETWORK: _network, ...inherited } = process.env;
  const child: ChildProcess = spawn(process.execPath, [CLI, 'dev', entry, '--port', '0', '--data-dir', dataDir, ...args], {
    cwd: root,
    env: { ...inherited, BROWSERFN_WARM_POOL_SIZE: '0', BROWSERFN_NPM_CACHE: join(tmpdir(), 'browserfn-test-npm-cache'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const line = (pattern: RegExp, from = 0, timeoutMs = 240_000) =>
    waitFor(`a line matching ${pattern} from browserfn dev (output so far:\n${text.slice(from)})`, async () => {
      if (child.exitCode !== null) throw new Error(`browserfn dev exited (${child.exitCode}):\n${text}`);
      return text.slice(from).split('\n').find((l) => pattern.test(l));
    }, timeoutMs, 100);
  const listening = await line(/^browserfn dev listening on /, 0, 120_000);
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(listening)![1];

  return {
    url,
    dataDir,
    output: () => text,
    line,
    async request(method, path, body, headers = {}) {
      const response = await fetch(url + path, {
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      const raw = await response.text();
      let parsed: unknown;
      try {
        parsed = raw ? JSON.parse(raw) : undefined;
      } catch {
        parsed = raw;
      }
      return { status: response.status, headers: response.headers, text: raw, body: parsed };
    },
    async stop() {
      try {
        if (child.exitCode === null) {
          child.kill('SIGTERM');
          await exited;
        }
        await assertNoProcessesUnder(dataDir, 'browserfn dev stopped');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
