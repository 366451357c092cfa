// The first process inside a pod's sandbox: it starts every container of the pod (so they share
// the sandbox's loopback, as containers of a Kubernetes pod do) and reports their exit codes.
// Protocol with the node agent: stdin carries one JSON line (the containers), then "TERM" lines
// (or EOF) to stop them; stdout carries one JSON line with the exit codes once all have ended;
// stderr carries the containers' output.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface LaunchedContainer {
  name: string;
  /** File and arguments, already resolved to paths inside the sandbox. */
  command: string[];
  env: Record<string, string>;
  cwd: string;
}

export interface LaunchRequest {
  containers: LaunchedContainer[];
}

export interface LaunchResult {
  exitCodes: number[];
}

export const TERMINATE_LINE = 'TERM';

/** Runs in the sandbox as its first process (see pod-launcher-main.ts). */
export function runPodLauncher(): void {
  const lines = createInterface({ input: process.stdin });
  let children: ChildProcess[] | undefined;
  const terminate = () => children?.forEach((child) => child.kill('SIGTERM'));
  lines.on('line', (line) => {
    if (children) {
      if (line === TERMINATE_LINE) terminate();
      return;
    }
    const request = JSON.parse(line) as LaunchRequest;
    children = request.containers.map(startContainer);
    void Promise.all(children.map(exitCode)).then((exitCodes) => {
      const result: LaunchResult = { exitCodes };
      process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0));
    });
  });
  // The node agent went away: its pods must not outlive it.
  lines.on('close', terminate);
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
