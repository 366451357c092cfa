// One build in a build pod: extract, install, bundle, discover Functions, report.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Logger } from '../config/logger.js';
import type { AgentSettings } from '../runtime/agent-common/agent-settings.js';
import type { ControlPlaneClient } from '../runtime/agent-common/control-plane-client.js';
import { LogCollector } from '../runtime/sandbox/log-collector.js';
import { podLayout } from '../runtime/sandbox/pod-layout.js';
import { linkRuntimeModules } from '../runtime/sandbox/runtime-modules.js';
import { BuildFailure } from './build-failure.js';
import { parseBuildInput } from './build-input.js';
import { ARCHIVE_LIMITS, type BuildLimits } from './build-limits.js';
import type { BuildReport } from '../schemas/reports.js';
import { bundleInChildProcess } from './bundle-process.js';
import { BuildDeadline } from './deadline.js';
import { installDependencies } from './dependency-install.js';
import { resolveEntrypoint } from './entrypoint.js';
import { introspectBundle } from './introspect.js';
import { npmrcAllowList } from './project-npmrc.js';
import { builtFunctionsOf } from './manifests.js';
import { extractProjectArchive } from './safe-extract.js';

/** After the build is stopped, how long its steps get to kill their child processes. */
const STOP_GRACE_MS = 5000;

export class BuildRun {
  readonly #logs = new LogCollector();
  readonly #deadline: BuildDeadline;

  constructor(
    private readonly settings: AgentSettings,
    private readonly agentEnv: NodeJS.ProcessEnv,
    private readonly limits: BuildLimits,
    private readonly control: ControlPlaneClient,
    private readonly log: Logger,
  ) {
    this.#deadline = new BuildDeadline(limits.buildSeconds);
  }

  /** SIGTERM to the agent. */
  terminate(): void {
    this.#deadline.stop(new BuildFailure('INTERNAL_ERROR', 'terminated'));
  }

  async execute(): Promise<BuildReport> {
    const work = this.#build();
    try {
      return await this.#deadline.race(work);
    } catch (error) {
      const failure = error instanceof BuildFailure ? error : new BuildFailure('INTERNAL_ERROR', `The build failed unexpectedly: ${(error as Error).message}`);
      if (failure.code === 'INTERNAL_ERROR') this.log.error({ err: error }, 'build failed');
      if (this.#deadline.signal.aborted) await settledWithin(work, STOP_GRACE_MS);
      this.#logs.add('error', `Build failed (${failure.code}): ${failure.message}`);
      return { kind: 'build', phase: 'FAILED', cause: { code: failure.code, message: failure.message }, logs: this.#logs.entries() };
    } finally {
      this.#deadline.dispose();
    }
  }

  async #build(): Promise<BuildReport> {
    const { podDir } = this.settings;
    const logs = this.#logs;
    const signal = this.#deadline.signal;
    const input = parseBuildInput(await this.#controlPlane(() => this.control.getInput(), 'get the build input'));
    logs.add('info', `Build ${input.buildId}: entrypoint ${input.entrypoint}`);

    const layout = podLayout(podDir);
    const projectDir = join(podDir, 'project');
    const outDir = join(podDir, 'out');
    for (const dir of [projectDir, outDir, layout.homeDir, layout.tmpDir]) mkdirSync(dir, { recursive: true });
    const archiveFile = join(podDir, 'archive.tar.gz');
    await this.#controlPlane(() => this.control.downloadArtifact(archiveFile), 'get the project archive');
    const archive = readFileSync(archiveFile);
    rmSync(archiveFile);

    logs.add('info', `Extracting the project archive (${archive.length} bytes)`);
    const extracted = await extractProjectArchive(archive, projectDir, ARCHIVE_LIMITS);
    logs.add('info', `Extracted ${extracted.entries} entries (${extracted.bytes} bytes)`);
    const entryPath = resolveEntrypoint(projectDir, input.entrypoint);
    signal.throwIfAborted();

    await installDependencies({
      projectDir,
      homeDir: layout.homeDir,
      tmpDir: layout.tmpDir,
      cacheDir: this.agentEnv.BROWSERFN_NPM_CACHE || join(podDir, '.npm'),
      configDir: join(podDir, 'npm-config'),
      npmrcAllow: npmrcAllowList(this.agentEnv),
      timeoutSeconds: this.limits.installSeconds,
      agentEnv: this.agentEnv,
      logs,
      signal,
    });

    signal.throwIfAborted();
    logs.add('info', `Bundling ${input.entrypoint} with esbuild`);
    const bundlePath = join(outDir, 'bundle.mjs');
    const bundle = await bundleInChildProcess(
      { entryPath, entryName: input.entrypoint, projectDir, outFile: bundlePath, runtimeModulesDir: this.settings.runtimeModulesDir },
      { homeDir: layout.homeDir, tmpDir: layout.tmpDir, agentEnv: this.agentEnv, signal },
    );
    for (const warning of bundle.warnings) logs.add('warn', warning);
    const gzipped = gzipSync(bundle.code, { level: 9 });
    logs.add('info', `Bundle: ${kib(bundle.code.length)} KiB, ${kib(gzipped.length)} KiB gzip-compressed`);
    const maxArtifactBytes = this.limits.maxArtifactBytes;
    if (gzipped.length > maxArtifactBytes) {
      throw new BuildFailure(
        'BUNDLE_TOO_LARGE',
        `The built artifact is ${gzipped.length} bytes (${mib(gzipped.length)} MiB), over the ${maxArtifactBytes}-byte (${mib(maxArtifactBytes)} MiB) limit (BROWSERFN_MAX_ARTIFACT_BYTES). ` +
          'Remove unused or heavy dependencies (browser automation packages are provided by the runtime and not bundled).',
      );
    }

    signal.throwIfAborted();
    logs.add('info', 'Discovering Functions (importing the bundle with BB_FUNCTIONS_PHASE=introspect)');
    const manifests = await introspectBundle({
      bundlePath,
      workDir: outDir,
      homeDir: layout.homeDir,
      tmpDir: layout.tmpDir,
      // Linked only now: while bundling, the project must not resolve packages from the runtime modules.
      runtimeModules: linkRuntimeModules(podDir, this.settings.runtimeModulesDir),
      agentEnv: this.agentEnv,
      logs,
      timeoutSeconds: this.limits.introspectSeconds,
      signal,
    });
    const functions = builtFunctionsOf(manifests, input.entrypoint);
    logs.add('info', `Built ${functions.length} Function(s): ${functions.map((fn) => fn.name).join(', ')}`);
    signal.throwIfAborted();
    const artifact = await this.#controlPlane(() => this.control.putArtifact(gzipped), 'store the artifact');
    logs.add('info', `Stored the artifact: ${artifact.size} bytes, sha256 ${artifact.sha256}`);
    return { kind: 'build', phase: 'COMPLETED', functions, artifact, logs: logs.entries() };
  }

  async #controlPlane<T>(call: () => Promise<T>, what: string): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new BuildFailure('INTERNAL_ERROR', `could not ${what}: ${(error as Error).message}`);
    }
  }
}

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
