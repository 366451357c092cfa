// Packages the runtime image provides to bundles (kept external by the build): playwright-core,
// puppeteer-core, chrome-remote-interface. A node_modules symlink next to the bundle's directory
// makes the bundle's bare imports resolve to them.
import { existsSync, lstatSync, readFileSync, realpathSync, symlinkSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This package's own node_modules: the default when BROWSERFN_RUNTIME_MODULES is unset. */
export function defaultRuntimeModulesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && readPackageName(manifest) === 'browserfn') return join(dir, 'node_modules');
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the browserfn package root; set BROWSERFN_RUNTIME_MODULES');
    dir = parent;
  }
}

function readPackageName(manifest: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name;
  } catch {
    return undefined;
  }
}

/** Creates `<podDir>/node_modules` → runtime modules; returns the paths user code must be allowed to read. */
export function linkRuntimeModules(podDir: string, runtimeModulesDir: string): string[] {
  const link = join(podDir, 'node_modules');
  // A pod directory reused after an agent restart already has the link.
  if (isSymlink(link)) unlinkSync(link);
  symlinkSync(runtimeModulesDir, link, 'dir');
  return [link, realpathSync(runtimeModulesDir)];
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Whether a package (bare name, possibly scoped) is available from the runtime modules. */
export function runtimeProvidesPackage(runtimeModulesDir: string, packageName: string): boolean {
  return existsSync(join(runtimeModulesDir, packageName, 'package.json'));
}
