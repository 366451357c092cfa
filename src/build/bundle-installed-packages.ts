// A bare import that resolves into an installed node_modules folder of the project stays external:
// the package runs from the installed tree shipped beside the compiled entry, so it finds its own
// files (assets, .wasm, its package.json), its dynamic imports and its optional dependencies as it
// would under Node. A bare import resolving elsewhere in the project (an npm workspace's linked
// package, a tsconfig `paths` alias) is the project's own source and is compiled in.
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { builtinModules } from 'node:module';
import type { Plugin } from 'esbuild';
import { RESOLVING } from './bundle-containment.js';

const BARE_SPECIFIER = /^[^./]/;

/** Adds every specifier it keeps external to `externalized`. */
export function installedPackagesPlugin(projectDir: string, externalized: Set<string>): Plugin {
  const builtins = new Set(builtinModules);
  const projectRoot = realPathOf(projectDir);
  return {
    name: 'browserfn-installed-packages',
    setup(build) {
      build.onResolve({ filter: BARE_SPECIFIER }, async (args) => {
        if (args.pluginData === RESOLVING || args.path.startsWith('node:') || builtins.has(args.path)) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          namespace: args.namespace,
          with: args.with,
          pluginData: RESOLVING,
        });
        if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== 'file' || !isInstalled(resolved.path, projectRoot)) return undefined;
        externalized.add(args.path);
        return { path: args.path, external: true };
      });
    },
  };
}

/** Inside a node_modules folder of the project, by real path (a link leading out is left to containment, which refuses it). */
function isInstalled(path: string, projectRoot: string): boolean {
  const rel = relative(projectRoot, realPathOf(path));
  return !isAbsolute(rel) && !rel.startsWith('..') && rel.split(sep).includes('node_modules');
}

function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
