// Whether this `serve` sandboxes its pods (BROWSERFN_SANDBOX, found by trial), and the refusal to
// serve several projects when it cannot: unsandboxed pods share the server's user, files and
// loopback, so one project's Function could reach another's pods and the server's data.
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Settings } from '../config/settings.js';
import { codeMounts, SANDBOX_PACKAGE_DIR } from '../runtime/node-agent/code-mounts.js';
import type { NodeSandbox } from '../runtime/node-agent/node-agent.js';
import { hostIdBlock } from '../runtime/node-agent/host-ids.js';
import { runsAsRoot, trialUid } from '../runtime/node-agent/pod-users.js';
import { detectSandboxSupport, SANDBOX_INSTALL_HINT } from '../runtime/sandbox/sandbox-support.js';

export interface SandboxDecision {
  sandbox?: NodeSandbox;
  /** Why pods are not sandboxed. */
  reason?: string;
  /** Folders made passable (o+x) for pod users on the way to what their sandboxes mount. */
  openedForPodUsers: string[];
}

export async function decideNodeSandbox(settings: Settings, controlUrl: string): Promise<SandboxDecision> {
  if (settings.sandbox === 'off') return { reason: 'BROWSERFN_SANDBOX=off', openedForPodUsers: [] };
  const code = codeMounts(settings.chromiumPath);
  // bwrap runs as the pod's user and must reach every folder it mounts (a checkout in /root, a
  // mktemp folder): the folders above them become passable for others — not listable, not readable.
  const openedForPodUsers = runsAsRoot() ? allowPassageTo([...code.mounts.map((m) => m.source), settings.dataDir, settings.npmCacheDir]) : [];
  const support = await detectSandboxSupport({
    network: settings.sandboxNetwork,
    mounts: code.mounts,
    node: code.node,
    packageFile: join(SANDBOX_PACKAGE_DIR, 'package.json'),
    // The last pod uid is never handed out; the trial runs as it.
    uid: runsAsRoot() ? trialUid(hostIdBlock(0).podUids) : undefined,
  });
  if (!support.available) {
    if (settings.sandbox === 'bwrap') throw new Error(`BROWSERFN_SANDBOX=bwrap, but ${support.reason}. To fix: ${SANDBOX_INSTALL_HINT}.`);
    return { reason: support.reason, openedForPodUsers };
  }
  const control = new URL(controlUrl);
  const port = Number(control.port || (control.protocol === 'https:' ? 443 : 80));
  return {
    sandbox: {
      network: settings.sandboxNetwork,
      forwardPorts: isLoopback(control.hostname) ? [port] : [],
      maxProcesses: settings.podMaxProcesses,
      chromiumSandbox: support.chromiumSandbox,
      code,
      ahead: settings.sandboxAhead,
    },
    openedForPodUsers,
  };
}

/** `serve` with more than one project needs pods isolated from each other and from the server. */
export function assertProjectsIsolated(settings: Settings, decision: SandboxDecision): void {
  const projects = new Set(settings.apiKeys.map((binding) => binding.project));
  if (decision.sandbox || projects.size <= 1) return;
  throw new Error(
    `BROWSERFN_API_KEYS lists ${projects.size} projects, but pods cannot be sandboxed here (${decision.reason}), so one project's ` +
      `Functions could read the server's data and reach the other projects' browsers. To fix: ${SANDBOX_INSTALL_HINT} ` +
      '(then BROWSERFN_SANDBOX=auto or bwrap), or run one project per `browserfn serve`.',
  );
}

/**
 * Pods running as other users (the server is root) must pass through the data dir to their own
 * folders: it becomes search-only for others (no listing), and its files private to the server
 * (the store is made by SQLite with its default mode).
 */
export function openDataDirForPodUsers(dataDir: string): void {
  if (!runsAsRoot()) return;
  chmodSync(dataDir, 0o711);
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(dataDir, entry.name);
    chmodSync(path, statSync(path).mode & 0o700);
  }
}

/** Adds search permission for others (o+x) to each folder above `paths` that lacks it; returns those changed. */
export function allowPassageTo(paths: string[]): string[] {
  const changed = new Set<string>();
  for (const path of paths) {
    for (let dir = dirname(path); ; dir = dirname(dir)) {
      const mode = statSync(dir, { throwIfNoEntry: false })?.mode;
      if (mode !== undefined && (mode & 0o001) === 0 && !changed.has(dir)) {
        chmodSync(dir, (mode & 0o7777) | 0o001);
        changed.add(dir);
      }
      if (dir === dirname(dir)) break;
    }
  }
  return [...changed];
}

/** One line for the operator: how pods are isolated. */
export function describeIsolation(decision: SandboxDecision): string {
  if (!decision.sandbox) return `pods unsandboxed (${decision.reason})`;
  const network = decision.sandbox.network === 'pasta' ? 'own network' : 'host network';
  return `pods sandboxed: bubblewrap, ${network}, Chromium sandbox ${decision.sandbox.chromiumSandbox ? 'on' : 'off'}`;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127\./.test(hostname);
}
