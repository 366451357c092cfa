// A control plane of its own that runs workloads (scripts/controlplane/start.sh with
// BROWSERFN_CONTROLPLANE_WORKLOADS=1: ServiceAccount admission, kube-scheduler, Deployment,
// ReplicaSet, ServiceAccount, root CA and node lifecycle controllers), for the chart's install test.
// Its own folder, etcd and API server: no pod of another test is ever scheduled, and the shared
// control plane keeps its few controllers. It shares the shared one's binaries and is stopped by
// stop() (or when the process exits).
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './controlplane.js';

const SHARED = process.env.BROWSERFN_CONTROLPLANE_DIR ?? join(repoRoot(), '.cache', 'controlplane');
const DIR = join(repoRoot(), '.cache', 'controlplane-workloads');
const ENV = { ...process.env, BROWSERFN_CONTROLPLANE_DIR: DIR, BROWSERFN_CONTROLPLANE_BIN: join(SHARED, 'bin'), BROWSERFN_CONTROLPLANE_WORKLOADS: '1' };

export const WORKLOADS_KUBECONFIG = join(DIR, 'kubeconfig');
const KUBECTL = join(SHARED, 'bin', 'kubectl');
const script = (name: string): string => join(repoRoot(), 'scripts', 'controlplane', name);

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

let stopAtExit: (() => void) | undefined;

/** Starts it (start.sh reuses one that runs); rejects with start.sh's last lines when it fails. */
export async function startWorkloadsControlPlane(): Promise<void> {
  const result = await run('bash', [script('start.sh')]);
  if (result.code !== 0) throw new Error(`start.sh (workloads) exited with ${result.code}:\n${(result.stdout + result.stderr).split('\n').slice(-30).join('\n')}`);
  stopAtExit = () => void spawnSync('bash', [script('stop.sh')], { env: ENV, stdio: 'ignore' });
  process.once('exit', stopAtExit);
}

export async function stopWorkloadsControlPlane(): Promise<void> {
  if (stopAtExit) process.off('exit', stopAtExit);
  stopAtExit = undefined;
  await run('bash', [script('stop.sh')]);
}

export function kubectlWorkloads(args: string[], stdin?: string): Promise<CommandResult> {
  return run(KUBECTL, ['--kubeconfig', WORKLOADS_KUBECONFIG, '--cache-dir', join(DIR, 'run', 'kubectl-cache'), ...args], stdin);
}

export function helmWorkloads(helm: string, args: string[]): Promise<CommandResult> {
  return run(helm, ['--kubeconfig', WORKLOADS_KUBECONFIG, ...args]);
}

function run(file: string, args: string[], stdin?: string): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { env: ENV, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    child.stdin?.end(stdin);
  });
}

