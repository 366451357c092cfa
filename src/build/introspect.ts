// Discovers the Functions of a bundle: imports it in the sandbox with BB_FUNCTIONS_PHASE=introspect
// (through introspect-runner.js) and reads the manifests that defineFn wrote.
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LogCollector } from '../runtime/sandbox/log-collector.js';
import { captureProcessOutput } from '../runtime/sandbox/output-capture.js';
import { describeExit } from '../runtime/sandbox/process-group.js';
import { startSandboxedProcess } from '../runtime/sandbox/sandboxed-process.js';
import { BuildFailure } from './build-failure.js';
import { BUILD_OUTPUT_LIMITS } from '../schemas/report-limits.js';
import { waitBounded } from './deadline.js';
import type { IntrospectionRecord } from './introspect-runner.js';

export const INTROSPECT_RUNNER_PATH = fileURLToPath(new URL('./introspect-runner.js', import.meta.url));

export interface RawManifest {
  file: string;
  content: unknown;
}

export interface IntrospectOptions {
  bundlePath: string;
  /** The process's cwd, where manifests are written. */
  workDir: string;
  /** The artifact's tree (the compiled entry and its installed packages), read-only. */
  codeDir: string;
  homeDir: string;
  tmpDir: string;
  /** Runtime module paths (link and real path) the bundle may read. */
  runtimeModules: string[];
  agentEnv: NodeJS.ProcessEnv;
  logs: LogCollector;
  timeoutSeconds: number;
  signal: AbortSignal;
}

export async function introspectBundle(options: IntrospectOptions): Promise<RawManifest[]> {
  const manifestDir = join(options.workDir, '.browserbase', 'functions', 'manifests');
  rmSync(join(options.workDir, '.browserbase'), { recursive: true, force: true });
  // The process's main module lives in the work folder, not in browserfn's package: with the main
  // module under the folder whose node_modules are the runtime modules, Node 20's permission model
  // and console preload made puppeteer-core's `import debug from "debug"` come out as no function.
  const main = join(options.workDir, '.browserfn-introspect.mjs');
  writeFileSync(main, `import ${JSON.stringify(pathToFileURL(INTROSPECT_RUNNER_PATH).href)};\n`);
  const child = startSandboxedProcess({
    script: main,
    args: [options.bundlePath],
    cwd: options.workDir,
    writable: [options.workDir, options.homeDir, options.tmpDir],
    homeDir: options.homeDir,
    tmpDir: options.tmpDir,
    readable: [INTROSPECT_RUNNER_PATH, options.workDir, options.codeDir, options.homeDir, options.tmpDir, ...options.runtimeModules],
    env: { BB_FUNCTIONS_PHASE: 'introspect' },
    agentEnv: options.agentEnv,
  });
  let record: IntrospectionRecord | undefined;
  const output = captureProcessOutput(child.streams, options.logs, {
    onRecord: (received) => {
      if (received.type === 'introspection') record = received as unknown as IntrospectionRecord;
    },
  });
  const ended = await waitBounded(child.exited, options.timeoutSeconds, options.signal);
  if (ended !== 'exited') await child.kill();
  await output.ended;
  if (ended === 'timeout') {
    throw new BuildFailure(
      'TIMED_OUT',
      `Importing the bundle to discover Functions did not finish within ${options.timeoutSeconds} seconds; do not start long-running work when the entry file is imported`,
    );
  }
  if (ended === 'stopped') throw options.signal.reason as Error;
  if (!record) {
    const detail = options.logs.lastError();
    throw new BuildFailure(
      'INTROSPECTION_FAILED',
      `The bundle ${describeExit(await child.exited)} while being imported to discover Functions${detail ? `: ${detail.slice(0, 2000)}` : ''}`,
    );
  }
  if (!record.ok) throw importFailure(record, options.codeDir);
  const rewritten = Object.entries(record.manifestWrites).filter(([, writes]) => writes > 1);
  if (rewritten.length > 0) {
    const names = rewritten.map(([file]) => `"${file.replace(/\.json$/, '')}"`).join(', ');
    throw new BuildFailure('DUPLICATE_FUNCTION_NAME', `defineFn was called more than once with the name ${names}; every Function needs a unique name`);
  }
  return readManifests(manifestDir);
}

function importFailure(record: IntrospectionRecord, codeDir: string): BuildFailure {
  const error = record.error ?? { name: 'Error', message: 'unknown error' };
  if (error.code === 'DUPLICATE_FUNCTION_NAME') return new BuildFailure('DUPLICATE_FUNCTION_NAME', error.message);
  if (error.code === 'INVALID_FUNCTION_NAME') return new BuildFailure('INVALID_FUNCTION_NAME', error.message);
  // Paths as the user knows them: relative to the project.
  const inProject = (text: string) => text.split(`${codeDir}/`).join('');
  const stackHead = inProject((error.stack ?? '').split('\n').slice(0, 6).join('\n'));
  const why = error.code ? IMPORT_FAILURE_CAUSES[error.code] : undefined;
  return new BuildFailure(
    'INTROSPECTION_FAILED',
    `The entry file threw while being imported to discover Functions: ${error.name}: ${inProject(error.message)}${why ? `\n${why}` : ''}${stackHead ? `\n${stackHead}` : ''}`,
  );
}

/** What an import failure of Node's means for a Function, by error code. */
const IMPORT_FAILURE_CAUSES: Record<string, string> = {
  ERR_MODULE_NOT_FOUND:
    'A module imported when the entry loads is not installed: add the package to the dependencies in package.json (npm ci installs only what the lockfile lists) and publish again with package-lock.json.',
  MODULE_NOT_FOUND:
    'A module required when the entry loads is not installed: add the package to the dependencies in package.json (npm ci installs only what the lockfile lists) and publish again with package-lock.json.',
  ERR_DLOPEN_DISABLED:
    'A package loads a native addon, which Functions cannot run (addons are neither built nor loaded); use a package with a JavaScript implementation or fallback.',
  ERR_ACCESS_DENIED: 'The code read or wrote outside its own files and folders, which the Function runtime does not allow.',
};

function readManifests(manifestDir: string): RawManifest[] {
  let files: string[];
  try {
    files = readdirSync(manifestDir).filter((file) => file.endsWith('.json')).sort();
  } catch {
    files = [];
  }
  if (files.length > BUILD_OUTPUT_LIMITS.maxFunctions) {
    throw new BuildFailure('TOO_MANY_MANIFESTS', `The project defines ${files.length} Functions; at most ${BUILD_OUTPUT_LIMITS.maxFunctions} are allowed per build. Split it into several projects.`);
  }
  return files.map((file) => {
    const path = join(manifestDir, file);
    const size = statSync(path).size;
    if (size > BUILD_OUTPUT_LIMITS.maxManifestBytes) {
      throw new BuildFailure(
        'MANIFEST_TOO_LARGE',
        `The definition of Function "${file.replace(/\.json$/, '')}" is ${size} bytes; sessionConfig and parametersSchema together must stay under ${BUILD_OUTPUT_LIMITS.maxManifestBytes} bytes`,
      );
    }
    try {
      return { file, content: JSON.parse(readFileSync(path, 'utf8')) as unknown };
    } catch (error) {
      throw new BuildFailure('INTROSPECTION_FAILED', `The manifest ${file} is not valid JSON: ${(error as Error).message}`);
    }
  });
}
