// Compiles the entry and the project's own files it imports into one ESM file with esbuild, written
// beside the entry. Installed packages stay external: they run from the installed node_modules tree
// shipped with it (artifact.ts), as Node would run them. Packages the runtime image provides stay
// external too; `browserfn` resolves to this package's SDK, bundled in, so user projects need not
// install it. Nothing outside the project is read (bundle-containment.ts); the agent runs this in a
// child process without its environment (bundle-process.ts).
import { builtinModules } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildFailure as EsbuildFailure, type Message, type Plugin } from 'esbuild';
import { runtimeProvidesPackage } from '../runtime/sandbox/runtime-modules.js';
import { RUNTIME_PACKAGES, type RuntimePackage } from '../schemas/runtime-packages.js';
import { BuildFailure } from './build-failure.js';
import { coreAliasPlugin } from './bundle-aliases.js';
import { containmentPlugin, isAllowedFile } from './bundle-containment.js';
import { installedPackagesPlugin } from './bundle-installed-packages.js';
import { optionalRequirePlugin } from './bundle-optional-require.js';

export const SDK_ENTRY_PATH = fileURLToPath(new URL('../sdk/index.js', import.meta.url));

// CommonJS code bundled into ESM expects require/__filename/__dirname. They are set on globalThis
// rather than declared, so user modules that declare their own `const __dirname` still load.
export const COMMONJS_BANNER = [
  'import { createRequire as __browserfnCreateRequire } from "node:module";',
  'import { fileURLToPath as __browserfnFileURLToPath } from "node:url";',
  'import { dirname as __browserfnDirname } from "node:path";',
  'globalThis.require ??= __browserfnCreateRequire(import.meta.url);',
  'globalThis.__filename ??= __browserfnFileURLToPath(import.meta.url);',
  'globalThis.__dirname ??= __browserfnDirname(globalThis.__filename);',
].join('\n');

const MAX_REPORTED_ERRORS = 5;

export interface BundleRequest {
  entryPath: string;
  /** The entry as the user named it, for messages. */
  entryName?: string;
  projectDir: string;
  /** Where the compiled entry is written; beside the entry, so its imports resolve as the entry's would. */
  outFile: string;
  runtimeModulesDir: string;
}

export interface BundleResult {
  code: Buffer;
  warnings: string[];
  /**
   * The runtime packages the code may import (sorted): what a warm pool member should load ahead.
   * All of them when installed packages are kept external, which may import any.
   */
  runtimePackages: RuntimePackage[];
}

const sdkPlugin: Plugin = {
  name: 'browserfn-sdk',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^browserfn$/ }, () => ({ path: SDK_ENTRY_PATH }));
  },
};

export async function bundleEntry(request: BundleRequest): Promise<BundleResult> {
  const allowedRoots = [request.projectDir, dirname(SDK_ENTRY_PATH)];
  const describeMessage = messageDescriber(request.projectDir, allowedRoots);
  const installed = new Set<string>();
  let result;
  try {
    result = await build({
      entryPoints: [request.entryPath],
      absWorkingDir: request.projectDir,
      outfile: request.outFile,
      write: false,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: false,
      metafile: true,
      logLevel: 'silent',
      banner: { js: COMMONJS_BANNER },
      external: [...RUNTIME_PACKAGES],
      plugins: [sdkPlugin, coreAliasPlugin(request.runtimeModulesDir), optionalRequirePlugin(), installedPackagesPlugin(request.projectDir, installed), containmentPlugin(allowedRoots, request.projectDir)],
    });
  } catch (error) {
    const errors = (error as EsbuildFailure).errors;
    if (!Array.isArray(errors)) throw error;
    throw new BuildFailure('BUNDLE_FAILED', `Bundling ${request.entryName ?? request.entryPath} failed; fix these errors:\n${describe(errors, describeMessage)}`);
  }
  const output = result.outputFiles.find((file) => file.path.endsWith('.mjs') || file.path.endsWith('.js'));
  if (!output) throw new BuildFailure('BUNDLE_FAILED', 'esbuild produced no output file');
  const externalImports = Object.values(result.metafile.outputs).flatMap((out) => out.imports);
  const ownImports = externalImports.filter((imported) => !installed.has(imported.path));
  assertRuntimeProvidesImports(ownImports, request.runtimeModulesDir);
  return {
    code: Buffer.from(output.contents),
    warnings: result.warnings.map((warning) => describeMessage(warning, 'warning')),
    runtimePackages: installed.size > 0 ? [...RUNTIME_PACKAGES] : RUNTIME_PACKAGES.filter((name) => ownImports.some((imported) => packageNameOf(imported.path) === name)),
  };
}

type MessageDescriber = (message: Message, kind: 'error' | 'warning') => string;

function describe(messages: Message[], describeMessage: MessageDescriber): string {
  const shown = messages.slice(0, MAX_REPORTED_ERRORS).map((message) => describeMessage(message, 'error'));
  const more = messages.length - shown.length;
  return shown.join('\n') + (more > 0 ? `\n… and ${more} more` : '');
}

/**
 * `file:line:column: error: text`, the offending line with a caret, and esbuild's notes. esbuild
 * reads some files on its own (a tsconfig.json's `extends`); a message about a file outside the
 * project never shows that file's text.
 */
function messageDescriber(projectDir: string, allowedRoots: string[]): MessageDescriber {
  return (message, kind) => {
    const where = message.location;
    if (where && !isAllowedFile(where.file, projectDir, allowedRoots)) {
      return `${kind}: esbuild read ${where.file}, which is outside the project (a tsconfig.json "extends" leading out of the project?); its content is not shown. A build may only use files of the project and its installed node_modules.`;
    }
    const lines = [where ? `${where.file}:${where.line}:${where.column + 1}: ${kind}: ${message.text}` : `${kind}: ${message.text}`];
    if (where?.lineText) {
      const gutter = String(where.line);
      lines.push(`  ${gutter} | ${where.lineText}`, `  ${' '.repeat(gutter.length)} | ${' '.repeat(where.column)}^`);
    }
    for (const note of message.notes) if (note.text) lines.push(`  note: ${note.text}`);
    return lines.join('\n');
  };
}

/** A bundle importing a runtime package the image lacks would only fail when invoked; fail the build instead. */
function assertRuntimeProvidesImports(imports: { path: string; external?: boolean }[], runtimeModulesDir: string): void {
  const builtins = new Set(builtinModules);
  const missing = new Set<string>();
  for (const imported of imports) {
    if (!imported.external || imported.path.startsWith('node:') || builtins.has(imported.path)) continue;
    const packageName = packageNameOf(imported.path);
    if (!runtimeProvidesPackage(runtimeModulesDir, packageName)) missing.add(packageName);
  }
  if (missing.size > 0) {
    const provided = RUNTIME_PACKAGES.filter((name) => runtimeProvidesPackage(runtimeModulesDir, name));
    throw new BuildFailure(
      'BUNDLE_FAILED',
      `The code imports ${[...missing].map((name) => `"${name}"`).join(', ')}, which the Function runtime does not provide. ` +
        `Use one of the provided packages instead: ${provided.join(', ')}.`,
    );
  }
}

function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
