// The two ways the node agent runs a pod's containers: each as a process group of its own on the
// host (no sandbox), or all together in one sandbox with its own namespaces.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { sandboxCommand, type PodSandboxSpec } from '../sandbox/pod-sandbox.js';
import { endByClosingStdin, signalProcessGroup } from '../sandbox/process-group.js';
import { isLaunchResult, PREPARED_LINE, TERMINATE_LINE, type LaunchedContainer, type LaunchRequest, type LaunchResult } from './pod-launcher.js';

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
  const sandbox = spawnSandbox(options, { PATH: process.env.PATH ?? '/usr/bin:/bin' });
  return sandbox.launch(containers, options.inProcess, onOutput);
}

/** A sandbox whose launcher runs and waits for its pod's containers: at once (startSandboxedPod), or from before its pod existed (spare-sandboxes.ts). */
export interface StartedSandbox {
  /** The sandbox's outermost process on the host. */
  readonly pid: number;
  /** Settles once the sandbox has exited. */
  readonly ended: Promise<void>;
  /** Settles once its launcher says the agent has prepared (pod-launcher.ts, PREPARED_LINE). */
  readonly prepared: Promise<void>;
  /** What it printed so far, for a sandbox that ended before any pod took it. */
  output(): string;
  /** Gives it its pod: the launch request goes to its launcher. */
  launch(containers: LaunchedContainer[], inProcess: boolean | undefined, onOutput: OnOutput): PodProcesses;
  /** Ends it unused: its launcher exits as its stdin closes, and everything is killed after `graceMs`. */
  discard(graceMs: number): Promise<void>;
  /** SIGKILL to everything of it, its network too. */
  kill(): void;
}

/** Starts the sandbox around its launcher with `env`; the pod comes with launch(). */
export function spawnSandbox(options: SandboxedPodOptions, env: Record<string, string>): StartedSandbox {
  const { uid, gid, enter, network } = options;
  const [sandboxFile, sandboxArgs] = sandboxCommand({ ...options.sandbox, joinNetworkOf: network?.holderPid, command: options.launcher });
  const user = uid !== undefined ? { uid, gid: gid ?? uid } : undefined;
  const [file, ...args] = enter ? enter([sandboxFile, ...sandboxArgs], user) : [sandboxFile, ...sandboxArgs];
  const spawnUser = enter ? {} : { uid, gid };
  const child = spawn(file, args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'], ...spawnUser, env });
  child.stdin?.on('error', () => undefined);
  let early = '';
  let onOutput: OnOutput = (text) => (early = (early + text).slice(-4000));
  child.stderr?.on('data', (chunk: Buffer) => onOutput(chunk.toString()));
  let result: LaunchResult | undefined;
  let markPrepared!: () => void;
  const prepared = new Promise<void>((resolve) => (markPrepared = resolve));
  if (child.stdout) createInterface({ input: child.stdout }).on('line', (line) => {
    const parsed = parseJson(line);
    if (line === PREPARED_LINE) markPrepared();
    else if (isLaunchResult(parsed)) result = parsed;
    else onOutput(line + '\n');
  });
  // 'close', not 'exit': the result line must have been read.
  const closed = exitCodeOf(child, (text) => onOutput(text), 'close');
  const ended = closed.then(() => undefined);
  const kill = () => {
    signalGroup(child, 'SIGKILL');
    network?.kill();
  };
  return {
    pid: child.pid ?? -1,
    ended,
    prepared,
    output: () => early,
    launch(containers, inProcess, podOutput) {
      onOutput = podOutput;
      const request: LaunchRequest = { containers, inProcess };
      child.stdin?.write(JSON.stringify(request) + '\n');
      const exited = closed.then(async (code) => {
        await network?.end();
        return result?.exitCodes ?? containers.map(() => (code === 0 ? 1 : code));
      });
      return {
        exited,
        terminate: () => {
          if (child.stdin?.writable) child.stdin.write(TERMINATE_LINE + '\n');
        },
        kill,
        pids: [child.pid],
      };
    },
    kill,
    async discard(graceMs) {
      await endByClosingStdin(child, ended, kill, graceMs);
      await network?.end();
    },
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
