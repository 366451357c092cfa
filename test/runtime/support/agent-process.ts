// Runs an agent (pod or build) as the node agent would: a child process with the BROWSERFN_* contract.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestControlPlane } from './test-control-plane.js';
import { agentMains } from '../../../src/runtime/node-agent/agent-mains.js';

/** What the node agent runs for a pod: the bundle of `make build` (its modules after a bare tsc). */
export const POD_AGENT_MAIN = agentMains()['pod-agent'];
export const BUILD_AGENT_MAIN = fileURLToPath(new URL('../../../src/build/main.js', import.meta.url));

export interface AgentLaunch {
  main: string;
  plane: TestControlPlane;
  namespace: string;
  pod: string;
  podDir: string;
  env?: Record<string, string>;
}

export interface AgentProcess {
  child: ChildProcess;
  /** Agent log lines (pino JSON) so far. */
  logLines: Record<string, unknown>[];
  /** Resolves with the first log line whose msg is `message`. */
  logged(message: string): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

export function startAgent(launch: AgentLaunch): AgentProcess {
  const child = spawn(process.execPath, [launch.main], {
    env: {
      PATH: process.env.PATH,
      BROWSERFN_CONTROL_URL: launch.plane.url,
      BROWSERFN_POD_NAMESPACE: launch.namespace,
      BROWSERFN_POD_NAME: launch.pod,
      BROWSERFN_POD_TOKEN: launch.plane.token,
      BROWSERFN_POD_DIR: launch.podDir,
      ...launch.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const logLines: Record<string, unknown>[] = [];
  const waiters: { message: string; resolve: (line: Record<string, unknown>) => void }[] = [];
  let pending = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const text of lines) {
      if (!text.trim()) continue;
      const line = JSON.parse(text) as Record<string, unknown>;
      logLines.push(line);
      for (const waiter of waiters.filter((w) => w.message === line.msg)) waiter.resolve(line);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    logLines,
    exited,
    logged: (message) => {
      const seen = logLines.find((line) => line.msg === message);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ message, resolve });
        void exited.then(() => reject(new Error(`agent exited without logging "${message}"`)));
      });
    },
  };
}

/** Runs the agent to its end and returns its exit code and log. */
export async function runAgent(launch: AgentLaunch): Promise<{ exitCode: number | null; logLines: Record<string, unknown>[] }> {
  const agent = startAgent(launch);
  const exitCode = await agent.exited;
  return { exitCode, logLines: agent.logLines };
}

/** Processes of a process group that are still running (zombies waiting for a reaper do not count). */
export { groupMembers as livingGroupMembers, processStat } from '../../../src/runtime/sandbox/process-group.js';

/** The repository root (where test/fixtures lives), found from the compiled test file. */
export function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'test', 'fixtures', 'projects'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the repository root');
    dir = parent;
  }
  return dir;
}

export function fixtureProject(name: string): string {
  return join(repositoryRoot(), 'test', 'fixtures', 'projects', name);
}
