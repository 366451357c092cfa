// Installed packages with a native addon to compile (binding.gyp). Builds never compile them
// (install scripts are off) and user code may not load addons (Node's permission model), so such a
// package only works through a JavaScript fallback; the build names them in its log.
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface NativeAddon {
  name: string;
  /** The package folder, relative to the project. */
  path: string;
}

export function unbuiltNativeAddons(projectDir: string): NativeAddon[] {
  const found: NativeAddon[] = [];
  const pending = [join(projectDir, 'node_modules')];
  while (pending.length > 0) {
    const modulesDir = pending.pop()!;
    for (const packageDir of packageDirs(modulesDir)) {
      if (existsSync(join(packageDir, 'binding.gyp'))) found.push({ name: relative(modulesDir, packageDir), path: relative(projectDir, packageDir) });
      const nested = join(packageDir, 'node_modules');
      if (isDirectory(nested)) pending.push(nested);
    }
  }
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/** `node_modules/x` and `node_modules/@scope/y` (links, such as workspace packages, are not followed). */
function packageDirs(modulesDir: string): string[] {
  if (!isDirectory(modulesDir)) return [];
  const dirs: string[] = [];
  for (const name of readdirSync(modulesDir)) {
    if (name.startsWith('.')) continue;
    const path = join(modulesDir, name);
    if (!isDirectory(path)) continue;
    if (name.startsWith('@')) dirs.push(...readdirSync(path).map((scoped) => join(path, scoped)).filter(isDirectory));
    else dirs.push(path);
  }
  return dirs;
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
