// The first process inside a pod's sandbox: it starts every container of the pod (so they share
// the sandbox's loopback, as containers of a Kubernetes pod do) and reports their exit codes.
// Protocol with the node agent: stdin carries one JSON line (the containers), then "TERM" lines
// (or EOF) to stop them; stdout carries one JSON line with the exit codes once all have ended
// (`isLaunchResult`); every other line, and stderr, is the containers' output.
// A pod whose one container is this same Node running one of this package's agents (every
// embedded browser and build pod; the node agent says so) has that script run in this process: no
// second Node start (about 70 ms, more beside a starting browser) and no second Node's memory.
// Started ahead of its pod (AHEAD_OF_POD, spare-sandboxes.ts), it loads that agent's script at once
// and hands the process over to the pod whose request comes later (pod-handover.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { writeSync } from 'node:fs';
import { createInterface, type Interface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { offerPodHandover } from '../agent-common/pod-handover.js';

export interface LaunchedContainer {
  name: string;
  /** File and arguments, already resolved to paths inside the sandbox. */
  command: string[];
  env: Record<string, string>;
  cwd: string;
}

export interface LaunchRequest {
  containers: LaunchedContainer[];
  /** The lone container runs one of this package's agents: it may run in the launcher's own process. */
  inProcess?: boolean;
}

export interface LaunchResult {
  exitCodes: number[];
}

export const TERMINATE_LINE = 'TERM';

/**
 * The launcher's first argument in a sandbox made ahead; the second is the agent script it runs,
 * the third the environment (JSON) it prepares with until its pod's comes.
 */
export const AHEAD_OF_POD = '--ahead-of-pod';
/** Its stdout line once the agent has prepared (pod-handover.ts): the sandbox can be handed out. */
export const PREPARED_LINE = '{"prepared":true}';

/** A line of the launcher's stdout that is its result, not a container's output. */
export function isLaunchResult(value: unknown): value is LaunchResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const { exitCodes } = value as { exitCodes?: unknown };
  return keys.length === 1 && Array.isArray(exitCodes) && exitCodes.every((code) => Number.isInteger(code));
}

/**
 * Variables Node may read only while it starts (NODE_OPTIONS, NODE_PATH, UV_THREADPOOL_SIZE,
 * OpenSSL's...): a container that sets one needs a Node of its own. NODE_ENV is the libraries'.
 */
const readAtNodeStart = (name: string): boolean =>
  (name.startsWith('NODE_') && name !== 'NODE_ENV') || name.startsWith('UV_') || name.startsWith('OPENSSL_') || name.startsWith('SSL_CERT_');

/** The script of a pod's only container when asked to run it here and it is `execPath` running it with no Node flags; else undefined. */
export function inProcessScript(request: LaunchRequest, execPath: string): string | undefined {
  if (!request.inProcess || request.containers.length !== 1) return undefined;
  const [{ command, env }] = request.containers;
  const [file, script] = command;
  if (file !== execPath || !script || script.startsWith('-')) return undefined;
  return Object.keys(env).some(readAtNodeStart) ? undefined : script;
}

/** Runs in the sandbox as its first process (see pod-launcher-main.ts). */
export function runPodLauncher(args = process.argv.slice(2)): void {
  if (args[0] === AHEAD_OF_POD && args[1] && args[2]) {
    runAheadOfPod(args[1], JSON.parse(args[2]) as Record<string, string>);
    return;
  }
  const lines = createInterface({ input: process.stdin });
  let children: ChildProcess[] | undefined;
  const terminate = () => children?.forEach((child) => child.kill('SIGTERM'));
  lines.on('line', (line) => {
    if (children) {
      if (line === TERMINATE_LINE) terminate();
      return;
    }
    const request = JSON.parse(line) as LaunchRequest;
    const script = inProcessScript(request, process.execPath);
    if (script) {
      children = [];
      runInProcess(request.containers[0], script, lines);
      return;
    }
    children = request.containers.map(startContainer);
    void Promise.all(children.map(exitCode)).then((exitCodes) => {
      const result: LaunchResult = { exitCodes };
      process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0));
    });
  });
  // The node agent went away: its pods must not outlive it.
  lines.on('close', terminate);
}

/**
 * Runs the container's script here, as the container: its environment, folder and arguments. The
 * result line goes out as this process exits, however that comes; its output is this process's.
 */
function runInProcess(container: LaunchedContainer, script: string, lines: Interface): void {
  reportExitOnExit();
  becomeContainer(container, lines);
  importScript(container.name, script);
}

/**
 * A sandbox made ahead: the agent's script is imported now, and prepares what needs no pod before it
 * waits for the handover; the pod's request then makes this process its container. The node agent
 * hands such a sandbox only a pod whose one container runs that script here; anything else is refused.
 */
function runAheadOfPod(script: string, env: Record<string, string>): void {
  const lines = createInterface({ input: process.stdin });
  let handOver!: () => void;
  const handed = new Promise<void>((resolve) => (handOver = resolve));
  offerPodHandover({ handed, prepared: () => process.stdout.write(`${PREPARED_LINE}\n`) });
  Object.assign(process.env, env);
  reportExitOnExit();
  lines.once('line', (line) => {
    const request = JSON.parse(line) as LaunchRequest;
    if (inProcessScript(request, process.execPath) !== script) {
      process.stderr.write(`a sandbox made ahead for ${script} was handed another pod\n`);
      process.exit(1);
    }
    becomeContainer(request.containers[0], lines);
    handOver();
  });
  // No pod came: the node agent gave it up, or went away.
  lines.on('close', () => process.exit(0));
  importScript('pod', script);
}

function reportExitOnExit(): void {
  process.once('exit', (code) => {
    try {
      writeSync(1, `${JSON.stringify({ exitCodes: [code] } satisfies LaunchResult)}\n`);
    } catch {
      // The node agent is gone: nobody is left to tell.
    }
  });
}

function becomeContainer(container: LaunchedContainer, lines: Interface): void {
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, container.env);
  process.chdir(container.cwd);
  process.argv = [process.execPath, ...container.command.slice(1)];
  // What `ps` shows, as if the container's command had been run.
  process.title = container.command.join(' ');
  // Stop requests still come on stdin, which no longer keeps this process alive: the script's own work does.
  const terminate = () => process.kill(process.pid, 'SIGTERM');
  lines.removeAllListeners('line').removeAllListeners('close');
  lines.on('line', (line) => line === TERMINATE_LINE && terminate());
  lines.on('close', terminate);
  process.stdin.unref();
}

function importScript(name: string, script: string): void {
  import(pathToFileURL(script).href).catch((error: unknown) => {
    process.stderr.write(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}

function startContainer(container: LaunchedContainer): ChildProcess {
  const [file, ...args] = container.command;
  const child = spawn(file, args, { env: container.env, cwd: container.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  child.on('error', (err) => process.stderr.write(`${container.name}: ${err.message}\n`));
  return child;
}

function exitCode(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    child.once('error', () => resolve(127));
  });
}
