// Starts user code (a bundle, or the introspection runner) as its own process: its own process
// group, a scrubbed environment (nothing of the agent's: no tokens, no BROWSERFN_*), Node's
// permission model, modules known by the paths they were found at, console routed to the channel fd.
import { spawn, type ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { baseChildEnvironment } from './child-environment.js';
import { CHANNEL_FD } from './channel.js';
import { LIBRARY_PROBE_PATHS, nodePermissionFlags } from './permission-flags.js';
import { exitOf, killProcessGroup, signalProcessGroup, trackProcessGroup, type ExitStatus } from './process-group.js';

// Named from runtime/, so they hold from the pod agent's bundle too (runtime/pod-agent/main.bundle.mjs).
export const CONSOLE_PRELOAD_PATH = fileURLToPath(new URL('../sandbox/console-preload.js', import.meta.url));
/** The channel's constants, which the console preload and the code loader import. */
export const CHANNEL_SUPPORT_PATH = fileURLToPath(new URL('../sandbox/channel.js', import.meta.url));

/**
 * Modules are known by the path they were found at, the pod's node_modules link included, not by
 * its target. Node's realpath (both module loaders' own, with its cache) returns a path unresolved
 * when the last stat the process made, anywhere, was of a pipe or socket: it reuses one array for
 * every stat's result. The bundle's import then named chrome-remote-interface by its link path while
 * the code loader had loaded it by its target, and got a second instance, half loaded (`CDP is not a
 * function`; docs/pools-measurements.md, 2026-11-27, eighth session). Without resolving, both name it alike.
 */
const MODULE_PATH_FLAGS = ['--preserve-symlinks'];

export interface SandboxOptions {
  /** The script node runs (the bundle, or a runner that imports it). */
  script: string;
  args?: string[];
  cwd: string;
  /**
   * The only trees the process may write to, all inside the pod directory. Never the pod directory
   * itself: Node checks the path as written, so a write through the pod's node_modules symlink
   * would land in the shared runtime modules.
   */
  writable: string[];
  homeDir: string;
  tmpDir: string;
  /** Trees the process may read besides its script and the console preload. */
  readable: string[];
  /** Variables on top of PATH, HOME, TMPDIR, TZ and NODE_ENV=production. */
  env: Record<string, string>;
  /** The agent's environment, for PATH and TZ only. */
  agentEnv: NodeJS.ProcessEnv;
  /** Give the process a stdin pipe (the code loader reads its bundle's path from it). */
  stdin?: boolean;
}

export interface SandboxedProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly streams: { stdout: Readable | null; stderr: Readable | null; channel: Readable | null };
  /** The process's stdin, when asked for. */
  readonly stdin: Writable | null;
  /** Whether Node's permission model is enforced (false on a Node without one). */
  readonly permissionModel: boolean;
  readonly exited: Promise<ExitStatus>;
  /** Stops the whole group (SIGSTOP): nothing of it runs, and nothing of it is freed, until kill(). */
  freeze(): void;
  kill(): Promise<void>;
}

export function sandboxEnvironment(options: Pick<SandboxOptions, 'homeDir' | 'tmpDir' | 'env' | 'agentEnv'>): Record<string, string> {
  return {
    ...baseChildEnvironment(options),
    TZ: options.agentEnv.TZ ?? 'UTC',
    NODE_ENV: 'production',
    ...options.env,
  };
}

export function startSandboxedProcess(options: SandboxOptions): SandboxedProcess {
  const permissionFlags = nodePermissionFlags({
    read: [
      ...withRealPaths([options.script, ...options.readable]),
      CONSOLE_PRELOAD_PATH,
      CHANNEL_SUPPORT_PATH,
      ...LIBRARY_PROBE_PATHS,
    ],
    write: withRealPaths(options.writable),
  });
  const child = spawn(
    process.execPath,
    [...(permissionFlags ?? []), ...MODULE_PATH_FLAGS, '--import', pathToFileURL(CONSOLE_PRELOAD_PATH).href, options.script, ...(options.args ?? [])],
    {
      cwd: options.cwd,
      env: sandboxEnvironment(options),
      detached: true,
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe'],
    },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error(`cannot start ${process.execPath} for ${options.script}`);
  // Writing to a process that has exited fails with EPIPE; its exit is what reports that.
  child.stdin?.on('error', () => undefined);
  trackProcessGroup(pid);
  return {
    child,
    pid,
    streams: { stdout: child.stdout, stderr: child.stderr, channel: child.stdio[CHANNEL_FD] as Readable | null },
    stdin: child.stdin,
    permissionModel: permissionFlags !== undefined,
    exited: exitOf(child),
    freeze: () => signalProcessGroup(pid, 'SIGSTOP'),
    kill: () => killProcessGroup(child),
  };
}

/** Node checks permissions against resolved paths, so a symlinked tree is allowed under both names. */
function withRealPaths(paths: string[]): string[] {
  const all: string[] = [];
  for (const path of paths) {
    all.push(path);
    try {
      const real = realpathSync(path);
      if (real !== path) all.push(real);
    } catch {
      // not there (yet): the given path is enough
    }
  }
  return all;
}
