// `playwright` and `puppeteer` are the -core packages plus browser downloads; the runtime never
// downloads browsers and provides the -core packages, whose API they share. Imports of them (and
// their subpaths that the -core package also exports) become imports of the runtime's -core package.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';
import { CORE_PACKAGE_OF } from '../schemas/runtime-packages.js';
const ALIASED = /^(playwright|puppeteer)(\/.*)?$/;

export function coreAliasPlugin(runtimeModulesDir: string): Plugin {
  return {
    name: 'browserfn-core-aliases',
    setup(build) {
      build.onResolve({ filter: ALIASED }, (args) => {
        const [, name, subpath = ''] = ALIASED.exec(args.path) ?? [];
        const core = CORE_PACKAGE_OF[name];
        if (subpath && !exportsSubpath(join(runtimeModulesDir, core), `.${subpath}`)) {
          return { errors: [{ text: `"${args.path}" has no counterpart in ${core}, which the Function runtime provides in place of ${name}; import from "${name}" or "${core}" instead.` }] };
        }
        return { path: `${core}${subpath}`, external: true };
      });
    },
  };
}

function exportsSubpath(packageDir: string, subpath: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { exports?: unknown };
    const exports = manifest.exports;
    return typeof exports === 'object' && exports !== null && !Array.isArray(exports) && subpath in exports;
  } catch {
    return false;
  }
}
