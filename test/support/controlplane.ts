// The real control plane for integration tests: reuses the one .cache/controlplane/kubeconfig
// points at when it answers, otherwise builds (when needed) and starts it with
// scripts/controlplane/start.sh. One control plane serves every test file of a mocha process; if
// this process started it, it is stopped when the process exits (BROWSERFN_KEEP_CONTROLPLANE=1
// keeps it running for the next run).
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kinds } from '../../src/cluster/objects.js';
import { openKubeCluster } from '../../src/cluster/kube/index.js';

/** The repository root: the nearest folder above this file holding package.json (works from dist*). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

const CACHE = process.env.BROWSERFN_CONTROLPLANE_DIR ?? join(repoRoot(), '.cache', 'controlplane');
export const KUBECONFIG_PATH = join(CACHE, 'kubeconfig');
export const KUBECTL_PATH = join(CACHE, 'bin', 'kubectl');
/** start.sh drops this discovery cache when it applies the CRDs. */
const KUBECTL_CACHE = join(CACHE, 'run', 'kubectl-cache');

/** start.sh's exit code when Go is not installed and no binaries were built before. */
const EXIT_GO_MISSING = 3;
const BINARIES = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubectl'];
const script = (name: string): string => join(repoRoot(), 'scripts', 'controlplane', name);

/** Why the control plane cannot be had on this machine (no Go and nothing built before), or undefined. */
export function controlPlaneUnavailable(): string | undefined {
  const go = spawnSync('bash', ['-c', 'command -v go || test -x /usr/local/go/bin/go'], { stdio: 'ignore' });
  if (go.status === 0 || BINARIES.every((name) => existsSync(join(CACHE, 'bin', name)))) return undefined;
  return 'Go is not installed (no `go` on PATH, no /usr/local/go/bin/go) and no control plane was built before, so the real kube-apiserver cannot be built';
}

export type ControlPlane =
  | { state: 'ready'; kubeconfigPath: string; startedHere: boolean; stop(): Promise<void> }
  | { state: 'no-go'; reason: string }
  | { state: 'failed'; reason: string };

async function answers(kubeconfigPath: string): Promise<boolean> {
  if (!existsSync(kubeconfigPath)) return false;
  const cluster = await openKubeCluster({ kubeconfigPath });
  try {
    await cluster.resource(Kinds.Namespace).get(undefined, 'default');
    return true;
  } catch {
    return false;
  } finally {
    await cluster.close();
  }
}

function runScript(name: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script(name)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output += chunk.toString();
      // Progress matters: a cold build of the control plane takes minutes.
      process.stderr.write(chunk);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

let current: Promise<ControlPlane> | undefined;
let stopAtExit: (() => void) | undefined;

/** The control plane for this process: the same answer to every caller until stop() is called. */
export function ensureControlPlane(): Promise<ControlPlane> {
  current ??= startControlPlane();
  return current;
}

async function startControlPlane(): Promise<ControlPlane> {
  const wasRunning = await answers(KUBECONFIG_PATH);
  // start.sh also re-applies crds/ to a running control plane, so a reused one has the current CRDs.
  const { code, output } = await runScript('start.sh');
  if (code !== 0) {
    current = undefined;
    if (code === EXIT_GO_MISSING) return { state: 'no-go', reason: output.trim().split('\n').pop() ?? 'Go is not installed' };
    return { state: 'failed', reason: `scripts/controlplane/start.sh exited with ${code}:\n${output.split('\n').slice(-40).join('\n')}` };
  }
  const startedHere = !wasRunning;
  if (startedHere && !process.env.BROWSERFN_KEEP_CONTROLPLANE) {
    // 'exit' handlers must be synchronous; mocha --exit ends the process right after the last test.
    stopAtExit = () => void spawnSync('bash', [script('stop.sh')], { stdio: 'ignore' });
    process.once('exit', stopAtExit);
  }
  return { state: 'ready', kubeconfigPath: KUBECONFIG_PATH, startedHere, stop: stopControlPlane };
}

async function stopControlPlane(): Promise<void> {
  if (stopAtExit) process.off('exit', stopAtExit);
  stopAtExit = undefined;
  current = undefined;
  const stopped = await runScript('stop.sh');
  if (stopped.code !== 0) throw new Error(`scripts/controlplane/stop.sh exited with ${stopped.code}: ${stopped.output}`);
}

/** Runs the control plane's own kubectl against it. */
export async function kubectl(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(KUBECTL_PATH, ['--kubeconfig', KUBECONFIG_PATH, '--cache-dir', KUBECTL_CACHE, ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    child.stdin?.end(stdin);
  });
}

/**
 * Kills etcd and kube-apiserver of the running control plane and starts them again with the same
 * ports and data (scripts/controlplane/restart.sh): a crash and restart under running watches.
 */
export async function restartControlPlane(): Promise<void> {
  const { code, output } = await runScript('restart.sh');
  if (code !== 0) throw new Error(`restart.sh failed (${code}): ${output.slice(-2000)}`);
}
