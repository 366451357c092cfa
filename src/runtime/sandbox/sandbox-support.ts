// Whether pods can be sandboxed on this machine, found once per process by trial: a sandbox like a
// pod's that runs Node over the package code, then (for Chromium's own sandbox) whether a user
// namespace can be made inside it.
import { spawn } from 'node:child_process';
import { sandboxCommand, type SandboxMount, type SandboxNetwork } from './pod-sandbox.js';

export type SandboxMode = 'auto' | 'bwrap' | 'off';

export interface SandboxProbe {
  network: SandboxNetwork;
  mounts: SandboxMount[];
  /** Node inside the sandbox, and a file of the package it must be able to read. */
  node: string;
  packageFile: string;
  /** Run the trial as this user (the server runs as root and pods get their own uids). */
  uid?: number;
}

export type SandboxSupport = { available: true; chromiumSandbox: boolean } | { available: false; reason: string };

export const SANDBOX_INSTALL_HINT = 'install bubblewrap and passt (Debian: apt-get install bubblewrap passt) and allow unprivileged user namespaces';

const TRIAL_TIMEOUT_MS = 15_000;
const probes = new Map<string, Promise<SandboxSupport>>();

export function detectSandboxSupport(probe: SandboxProbe): Promise<SandboxSupport> {
  const key = JSON.stringify(probe);
  let found = probes.get(key);
  if (!found) {
    found = runProbe(probe);
    probes.set(key, found);
  }
  return found;
}

async function runProbe(probe: SandboxProbe): Promise<SandboxSupport> {
  const base = { network: probe.network, forwardPorts: [], mounts: probe.mounts };
  const node = await trial(sandboxCommand({ ...base, command: [probe.node, '-e', `require('fs').accessSync(${JSON.stringify(probe.packageFile)})`] }), probe.uid);
  if (!node.ok) return { available: false, reason: `a trial sandbox failed: ${node.detail}` };
  // Chromium's sandbox needs user namespaces inside ours; bwrap is at hand to try one.
  const nested = await trial(sandboxCommand({ ...base, command: ['bwrap', '--unshare-user', '--unshare-pid', '--ro-bind', '/', '/', 'true'] }), probe.uid);
  return { available: true, chromiumSandbox: nested.ok };
}

/** Runs a command once as `uid`: whether it exited 0, and what it said if not. */
export function trial([file, args]: [string, string[]], uid?: number): Promise<{ ok: boolean; detail: string }> {
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'], uid, gid: uid, timeout: TRIAL_TIMEOUT_MS });
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-1000)));
    child.once('error', (err) => resolve({ ok: false, detail: `${file}: ${err.message}` }));
    child.once('exit', (code, signal) => resolve({ ok: code === 0, detail: `${file} ${signal ? `was killed by ${signal}` : `exited with code ${code}`}: ${stderr.trim() || '(no output)'}` }));
  });
}
