// Node tolerates `try { require('bufferutil') } catch {}` when the package is not installed; many
// packages (ws, node-fetch, openai...) probe optional dependencies this way. A require() call of a
// bare name that does not resolve in the project's installed tree therefore does not fail the
// build: it becomes a module that throws Node's MODULE_NOT_FOUND error when (and only if) it is
// required. It resolves nothing at run time, so it cannot load the runtime's or the host's packages.
// Static imports and import() of a missing module still fail the build (esbuild's own error).
import { builtinModules } from 'node:module';
import type { Plugin } from 'esbuild';
import { RESOLVING } from './bundle-containment.js';

const MISSING_NAMESPACE = 'browserfn-missing-module';
/** Not relative or absolute; esbuild's Go regular expressions have no lookahead for `node:`. */
const BARE_SPECIFIER = /^[^./]/;

export function optionalRequirePlugin(): Plugin {
  const builtins = new Set(builtinModules);
  return {
    name: 'browserfn-optional-require',
    setup(build) {
      build.onResolve({ filter: BARE_SPECIFIER }, async (args) => {
        if (args.kind !== 'require-call' || args.pluginData === RESOLVING || args.path.startsWith('node:') || builtins.has(args.path)) return undefined;
        // Containment is skipped here only because a module that resolves is left to it (undefined).
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, namespace: args.namespace, pluginData: RESOLVING });
        if (resolved.errors.length === 0) return undefined;
        return {
          path: args.path,
          namespace: MISSING_NAMESPACE,
          warnings: [{ text: `require("${args.path}") does not resolve in the installed packages; it throws MODULE_NOT_FOUND if reached at run time, as in Node.` }],
        };
      });
      build.onLoad({ filter: /.*/, namespace: MISSING_NAMESPACE }, (args) => ({
        loader: 'js',
        contents: missingModuleSource(args.path),
      }));
    },
  };
}

/** CommonJS (no import/export), so esbuild runs it lazily at the require() call. */
function missingModuleSource(specifier: string): string {
  const message = JSON.stringify(`Cannot find module '${specifier}'`);
  return `const error = new Error(${message});\nerror.code = 'MODULE_NOT_FOUND';\nthrow error;\n`;
}
