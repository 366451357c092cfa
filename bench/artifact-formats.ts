// `make bench ARGS=artifacts`: the two candidate artifact formats measured on the test corpus
// (test/fixtures/projects/real-*), after one `npm ci` of each project from the shared npm cache:
//   (a) one esbuild bundle of the entry and every package it imports (what builds shipped before);
//   (b) the installed tree: the project after npm ci, runtime packages pruned, the entry compiled
//       with installed packages external, packed as tar.gz (what builds ship now, src/build/artifact.ts).
// For each: build time (bundle, or compile + prune + pack), artifact size (gzip / tar.gz), and
// handler start: from an empty pod folder to the entry imported (node started, defineFn called),
// which for (b) includes unpacking the artifact. Median of three starts.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { compiledEntryPath, packArtifact, pruneRuntimePackages, writeArtifactMain, ARTIFACT_MAIN } from '../src/build/artifact.js';
import { coreAliasPlugin } from '../src/build/bundle-aliases.js';
import { bundleEntry, COMMONJS_BANNER, SDK_ENTRY_PATH } from '../src/build/bundle.js';
import { RUNTIME_PACKAGES } from '../src/schemas/runtime-packages.js';
import { optionalRequirePlugin } from '../src/build/bundle-optional-require.js';
import { extractArchive } from '../src/runtime/agent-common/safe-extract.js';
import { ARTIFACT_LIMITS } from '../src/runtime/pod-agent/artifact-limits.js';
import { defaultRuntimeModulesDir, linkRuntimeModules } from '../src/runtime/sandbox/runtime-modules.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/projects/', import.meta.url));
const NPM_CACHE = join(tmpdir(), 'browserfn-test-npm-cache');
const ENTRIES: Record<string, string> = {
  'real-stagehand': 'index.mts',
  'real-openai': 'index.mts',
  'real-cheerio': 'index.ts',
  'real-puppeteer': 'index.ts',
  'real-playwright': 'index.mts',
  'real-commonjs': 'index.js',
  'real-tsconfig-paths': 'src/index.ts',
  'real-workspace': 'packages/fn/index.ts',
  'real-json-asset': 'index.ts',
};

const sdkPlugin: Plugin = { name: 'sdk', setup: (b) => b.onResolve({ filter: /^browserfn$/ }, () => ({ path: SDK_ENTRY_PATH })) };

export async function runArtifactFormatsBench(): Promise<void> {
  const runtimeModulesDir = defaultRuntimeModulesDir();
  const root = mkdtempSync(join(tmpdir(), 'browserfn-bench-artifacts-'));
  console.log('\nArtifact formats on the corpus: (a) one esbuild bundle, (b) the installed tree as tar.gz');
  console.log('project               | install | (a) build  size      start | (b) build  size      files  start (unpack) | (b) on tmpfs');
  try {
    for (const [name, entry] of Object.entries(ENTRIES)) {
      const project = join(root, name);
      cpSync(join(FIXTURES, name), project, { recursive: true });
      const install = timed(() => spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--cache', NPM_CACHE], { cwd: project, stdio: 'ignore' }));

      // (a) everything in one bundle (runtime packages external, optional requires stubbed).
      const bundlePod = join(root, `${name}-a`);
      mkdirSync(join(bundlePod, 'app'), { recursive: true });
      let bundleGz = 0;
      let bundleError: string | undefined;
      const bundleStarted = performance.now();
      try {
        const result = await build({
          entryPoints: [join(project, entry)],
          absWorkingDir: project,
          bundle: true,
          write: false,
          platform: 'node',
          format: 'esm',
          target: 'node20',
          logLevel: 'silent',
          outfile: join(bundlePod, 'app', 'bundle.mjs'),
          banner: { js: COMMONJS_BANNER },
          external: [...RUNTIME_PACKAGES],
          plugins: [sdkPlugin, coreAliasPlugin(runtimeModulesDir), optionalRequirePlugin()],
        });
        const code = result.outputFiles[0].contents;
        writeFileSync(join(bundlePod, 'app', 'bundle.mjs'), code);
        bundleGz = gzipSync(code, { level: 9 }).length;
      } catch (error) {
        bundleError = (error as Error).message.split('\n')[0];
      }
      const bundleMs = performance.now() - bundleStarted;
      linkRuntimeModules(bundlePod, runtimeModulesDir);
      const bundleStart = bundleError ? undefined : await medianStart(async () => join(bundlePod, 'app', 'bundle.mjs'), join(bundlePod, 'app'));

      // (b) the installed tree.
      const treeStarted = performance.now();
      pruneRuntimePackages(project);
      const compiled = compiledEntryPath(project, entry);
      const bundle = await bundleEntry({ entryPath: join(project, entry), entryName: entry, projectDir: project, outFile: compiled, runtimeModulesDir });
      writeFileSync(compiled, bundle.code);
      writeArtifactMain(project, compiled);
      const packed = await packArtifact(project);
      const treeMs = performance.now() - treeStarted;
      const treeStart = await treeStartOn(join(root, `${name}-b`), packed.bytes, runtimeModulesDir);
      const treeStartInMemory = existsSync('/dev/shm') ? await treeStartOn(mkdtempSync(join('/dev/shm', 'browserfn-bench-')), packed.bytes, runtimeModulesDir) : undefined;

      console.log(
        `${name.padEnd(21)} | ${seconds(install.ms)} | ${seconds(bundleMs)}  ${bundleError ? `fails: ${bundleError.slice(0, 60)}` : `${mib(bundleGz)}  ${bundleStart ? seconds(bundleStart) : 'fails'}`} | ` +
          `${seconds(treeMs)}  ${mib(packed.bytes.length)}  ${String(packed.files).padStart(5)}  ${describeStart(treeStart)} | ${treeStartInMemory ? describeStart(treeStartInMemory) : 'no /dev/shm'}`,
      );
      rmSync(project, { recursive: true, force: true });
      rmSync(bundlePod, { recursive: true, force: true });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  console.log('sizes: (a) gzip -9 of the bundle, (b) the tar.gz a build stores; start: unpack (b) + node importing the entry with BB_FUNCTIONS_PHASE=introspect; pod folders in the OS temp folder, and for the last column in /dev/shm');
}

interface TreeStart {
  start?: number;
  unpack: number;
}

/** (b) in a pod folder at `podDir`: unpack into code/, then import; medians of three. */
async function treeStartOn(podDir: string, artifact: Buffer, runtimeModulesDir: string): Promise<TreeStart> {
  mkdirSync(join(podDir, 'app'), { recursive: true });
  linkRuntimeModules(podDir, runtimeModulesDir);
  const unpackTimes: number[] = [];
  const start = await medianStart(async () => {
    const code = join(podDir, 'code');
    rmSync(code, { recursive: true, force: true });
    const started = performance.now();
    await extractArchive(artifact, code, ARTIFACT_LIMITS);
    unpackTimes.push(performance.now() - started);
    return join(code, ARTIFACT_MAIN);
  }, join(podDir, 'app'));
  rmSync(podDir, { recursive: true, force: true });
  return { start, unpack: median(unpackTimes) };
}

function describeStart(measured: TreeStart): string {
  return `${measured.start === undefined ? '  fails' : seconds(measured.start)} (${seconds(measured.unpack)})`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Median of three: prepare (unpack) and import the entry in a fresh node; undefined if the import fails. */
async function medianStart(prepare: () => Promise<string>, cwd: string): Promise<number | undefined> {
  const times: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    rmSync(join(cwd, '.browserbase'), { recursive: true, force: true });
    const started = performance.now();
    const entry = await prepare();
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [entry], { cwd, env: { PATH: process.env.PATH, BB_FUNCTIONS_PHASE: 'introspect', NODE_ENV: 'production' }, stdio: 'ignore' });
      child.on('exit', (exitCode) => resolve(exitCode));
    });
    if (code !== 0 || readdirSync(join(cwd, '.browserbase', 'functions', 'manifests')).length === 0) return undefined;
    times.push(performance.now() - started);
  }
  return median(times);
}

function timed<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`.padStart(7);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`.padStart(9);
