// The two ways the node agent runs a pod's containers: each as a process group of its own on the
// host (no sandbox), or all together in one sandbox with its own namespaces.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { sandboxCommand, type PodSandboxSpec } from '../sandbox/pod-sandbox.js';
import { signalProcessGroup } from '../sandbox/process-group.js';
import { isLaunchResult, TERMINATE_LINE, type LaunchedContainer, type LaunchRequest, type LaunchResult } from './pod-launcher.js';

export interface PodProcesses {
  /** Exit code per container, in the order given. */
  exited: Promise<number[]>;
  /** Asks every container to stop (SIGTERM). */
  terminate(): void;
  /** Kills everything of the pod (SIGKILL). */
  kill(): void;
  pids: (number | undefined)[];
}

type OnOutput = (text: string) => void;

/** Makes a command enter the pod's cgroups before it execs, then run as `user` (cgroup-entry.ts). */
export type EnterCgroup = (command: string[], user?: { uid: number; gid: number }) => string[];

/** Unsandboxed: one detached process group per container, `-pid` signals reach all it spawned. */
export function startProcessGroups(containers: LaunchedContainer[], onOutput: OnOutput, enter?: EnterCgroup): PodProcesses {
  const children = containers.map((c) => {
    const [file, ...args] = enter ? enter(c.command) : c.command;
    const child = spawn(file, args, { env: c.env, cwd: c.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => onOutput(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => onOutput(chunk.toString()));
    return child;
  });
  const exited = Promise.all(children.map((child) => exitCodeOf(child, onOutput)));
  return {
    exited,
    terminate: () => children.forEach((child) => signalGroup(child, 'SIGTERM')),
    kill: () => children.forEach((child) => signalGroup(child, 'SIGKILL')),
    pids: children.map((child) => child.pid),
  };
}

export interface SandboxedPodOptions {
  sandbox: Omit<PodSandboxSpec, 'command'>;
  /** The launcher (node and its script, paths inside the sandbox). */
  launcher: string[];
  /** Host user the sandbox runs as (when the agent is root). */
  uid?: number;
  gid?: number;
  /** Set: the sandbox starts in the pod's memory cgroup, and this switches to uid/gid. */
  enter?: EnterCgroup;
  /** The lone container runs one of this package's agents: the launcher may run it in its own process (pod-launcher.ts). */
  inProcess?: boolean;
  /** A network made ahead (spare-networks.ts) that the pod joins instead of starting pasta; it ends with the pod. */
  network?: JoinedNetwork;
}

export interface JoinedNetwork {
  holderPid: number;
  end(): Promise<void>;
  kill(): void;
}

/**
 * Sandboxed: pasta (or a network made ahead) and bwrap around the pod launcher, which starts the
 * containers inside. The outermost process leads a process group of its own; SIGKILL to it takes
 * bwrap down, and bwrap (--die-with-parent) the PID namespace and everything in it.
 */
export function startSandboxedPod(containers: LaunchedContainer[], options: SandboxedPodOptions, onOutput: OnOutput): PodProcesses {
  const { uid, gid, enter, network } = options;
  const [sandboxFile, sandboxArgs] = sandboxCommand({ ...options.sandbox, joinNetworkOf: network?.holderPid, command: options.launcher });
  const user = uid !== undefined ? { uid, gid: gid ?? uid } : undefined;
  const [file, ...args] = enter ? enter([sandboxFile, ...sandboxArgs], user) : [sandboxFile, ...sandboxArgs];
  const spawnUser = enter ? {} : { uid, gid };
  const child = spawn(file, args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'], ...spawnUser, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  child.stdin?.on('error', () => undefined);
  const request: LaunchRequest = { containers, inProcess: options.inProcess };
  child.stdin?.write(JSON.stringify(request) + '\n');
  child.stderr?.on('data', (chunk: Buffer) => onOutput(chunk.toString()));
  let result: LaunchResult | undefined;
  if (child.stdout) createInterface({ input: child.stdout }).on('line', (line) => {
    const parsed = parseJson(line);
    if (isLaunchResult(parsed)) result = parsed;
    else onOutput(line + '\n');
  });
  // 'close', not 'exit': the result line must have been read.
  const exited = exitCodeOf(child, onOutput, 'close').then(async (code) => {
    await network?.end();
    return result?.exitCodes ?? containers.map(() => (code === 0 ? 1 : code));
  });
  return {
    exited,
    terminate: () => {
      if (child.stdin?.writable) child.stdin.write(TERMINATE_LINE + '\n');
    },
    kill: () => {
      signalGroup(child, 'SIGKILL');
      network?.kill();
    },
    pids: [child.pid],
  };
}

function exitCodeOf(child: ChildProcess, onOutput: OnOutput, event: 'exit' | 'close' = 'exit'): Promise<number> {
  return new Promise((resolve) => {
    child.once(event, (code: number | null, signal: NodeJS.Signals | null) => resolve(code ?? (signal ? 128 : 1)));
    child.once('error', (err) => {
      onOutput(String(err));
      resolve(127);
    });
  });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid !== undefined) signalProcessGroup(child.pid, signal);
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
