// What of the host's programs a pod sandbox sees, read-only: this package's code (its build output,
// node_modules and package.json — not the package root, which may hold the default data dir
// `.data`), and Node's or Chromium's install folder when it is not under /usr.
import { realpathSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxMount } from '../sandbox/pod-sandbox.js';
import { defaultRuntimeModulesDir } from '../sandbox/runtime-modules.js';

/** Where the package's code appears inside a sandbox. */
export const SANDBOX_PACKAGE_DIR = '/opt/browserfn';

export interface CodeMounts {
  mounts: SandboxMount[];
  /** The path a host file of this package (or Node) has inside the sandbox. */
  inside(hostPath: string): string;
  /** Node's binary inside the sandbox. */
  node: string;
  /** PATH inside the sandbox. */
  path: string;
}

export function codeMounts(chromiumPath: string): CodeMounts {
  const packageRoot = dirname(defaultRuntimeModulesDir());
  const thisFile = fileURLToPath(import.meta.url);
  // The folder of the package that holds this very code (dist/, or whatever the build writes to).
  const codeDir = join(packageRoot, relative(packageRoot, thisFile).split(sep)[0]);
  const mounts: SandboxMount[] = [codeDir, join(packageRoot, 'node_modules'), join(packageRoot, 'package.json')].map((source) => ({
    source,
    target: join(SANDBOX_PACKAGE_DIR, relative(packageRoot, source)),
  }));
  const node = realpathSync(process.execPath);
  const nodeBin = dirname(node);
  // Node's prefix (bin/node, lib/node_modules/npm); Chromium's own folder.
  const chromium = safeRealpath(chromiumPath);
  for (const installDir of [dirname(nodeBin), chromium && dirname(chromium)]) {
    if (!installDir || installDir === '/usr' || installDir.startsWith('/usr/')) continue;
    if (!mounts.some((m) => m.source === installDir)) mounts.push({ source: installDir, target: installDir });
  }
  const inside = (hostPath: string) =>
    hostPath.startsWith(packageRoot + sep) ? join(SANDBOX_PACKAGE_DIR, relative(packageRoot, hostPath)) : hostPath;
  const path = [...new Set([nodeBin, '/usr/local/bin', '/usr/bin', '/bin'])].join(':');
  return { mounts, inside, node, path };
}

function safeRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
