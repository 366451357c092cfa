// esbuild inlines whatever an import resolves to, with any loader (`with { type: 'text' }`,
// file, binary, json...). This plugin resolves every import first and refuses any file whose real
// path (symlinks followed) is outside the allowed folders: the project with its node_modules, and
// browserfn's SDK. Externals (runtime packages, Node built-ins) are not files and pass. Files that
// reach esbuild without an import of their own (glob imports like import(`../${x}.txt`)) are
// checked again when loaded.
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Plugin } from 'esbuild';

/** Marks the plugins' own nested resolve calls, which must not be checked again. */
export const RESOLVING = { browserfnContainment: true };

export function containmentPlugin(allowedRoots: string[], displayRoot: string): Plugin {
  const roots = allowedRoots.map(realPathOf);
  return {
    name: 'browserfn-containment',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === RESOLVING) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          namespace: args.namespace,
          with: args.with,
          pluginData: RESOLVING,
        });
        if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== 'file' || !resolved.path) return resolved;
        const real = realPathOf(resolved.path);
        if (roots.some((root) => isInside(real, root))) return resolved;
        const importer = args.importer ? shown(args.importer, displayRoot) : 'the entry point';
        const why = resolved.path === real ? `${real} is outside the project` : `it resolves through a link to ${real}, outside the project`;
        return { errors: [{ text: `Import "${args.path}" in ${importer} is refused: ${why}. ${ONLY_PROJECT_FILES}` }] };
      });
      build.onLoad({ filter: /.*/, namespace: 'file' }, (args) => {
        const real = realPathOf(args.path);
        if (roots.some((root) => isInside(real, root))) return undefined;
        return { errors: [{ text: `Loading ${real} is refused: it is outside the project (a glob import or a link leads there). ${ONLY_PROJECT_FILES}` }] };
      });
    },
  };
}

const ONLY_PROJECT_FILES = 'A build may only use files of the project and its installed node_modules.';

/** Whether an esbuild message's file (relative to the project, as esbuild names it) lies inside the allowed folders. */
export function isAllowedFile(file: string, projectDir: string, allowedRoots: string[]): boolean {
  const real = realPathOf(resolve(projectDir, file));
  return allowedRoots.map(realPathOf).some((root) => isInside(real, root));
}

function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function shown(path: string, root: string): string {
  return isInside(path, root) ? relative(root, path) : path;
}
