// One build in a build pod: extract, install, bundle, discover Functions, report.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
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
import { ARTIFACT_MAIN, compiledEntryPath, packArtifact, pruneRuntimePackages, writeArtifactMain } from './artifact.js';
import { replacedVersionWarnings } from './runtime-versions.js';
import { BuildSteps } from './build-steps.js';
import { unbuiltNativeAddons } from './native-addons.js';
import { settledWithin } from '../runtime/agent-common/settled-within.js';
import { PodEnv } from '../schemas/pod-env.js';

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
    const steps = new BuildSteps(logs);
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

    const { entryPath } = await steps.run('extract', async () => {
      logs.add('info', `Extracting the project archive (${archive.length} bytes)`);
      const extracted = await extractProjectArchive(archive, projectDir, ARCHIVE_LIMITS);
      logs.add('info', `Extracted ${extracted.entries} entries (${extracted.bytes} bytes)`);
      return { entryPath: resolveEntrypoint(projectDir, input.entrypoint) };
    });
    signal.throwIfAborted();

    await steps.run('install', () =>
      installDependencies({
        projectDir,
        homeDir: layout.homeDir,
        tmpDir: layout.tmpDir,
        cacheDir: this.agentEnv[PodEnv.npmCache] || join(podDir, '.npm'),
        configDir: join(podDir, 'npm-config'),
        npmrcAllow: npmrcAllowList(this.agentEnv),
        timeoutSeconds: this.limits.installSeconds,
        agentEnv: this.agentEnv,
        logs,
        signal,
      }),
    );
    signal.throwIfAborted();

    const artifact = await steps.run('bundle', async () => {
      const pruned = pruneRuntimePackages(projectDir);
      if (pruned.removed.length > 0) {
        logs.add('info', `Left out of the artifact, provided by the runtime: ${pruned.removed.join(', ')}; and ${pruned.onlyTheirs} package(s) installed only for them`);
      }
      for (const warning of replacedVersionWarnings(pruned.replacedVersions, this.settings.runtimeModulesDir)) logs.add('warn', warning);
      for (const addon of unbuiltNativeAddons(projectDir)) {
        logs.add('warn', `${addon.name} (${addon.path}) is a native addon, which is never built (install scripts are off) nor loaded (the permission model); code requiring it must have a JavaScript fallback`);
      }
      logs.add('info', `Compiling ${input.entrypoint} with esbuild (installed packages stay external)`);
      const compiledEntry = compiledEntryPath(projectDir, input.entrypoint);
      const compiled = await bundleInChildProcess(
        { entryPath, entryName: input.entrypoint, projectDir, outFile: compiledEntry, runtimeModulesDir: this.settings.runtimeModulesDir },
        { homeDir: layout.homeDir, tmpDir: layout.tmpDir, agentEnv: this.agentEnv, signal },
      );
      for (const warning of compiled.warnings) logs.add('warn', warning);
      writeArtifactMain(projectDir, compiledEntry);
      const packed = await packArtifact(projectDir);
      logs.add('info', `Artifact: ${mib(packed.bytes.length)} MiB tar.gz (${packed.files} files, ${mib(packed.unpackedBytes)} MiB unpacked)`);
      const maxArtifactBytes = this.limits.maxArtifactBytes;
      if (packed.bytes.length > maxArtifactBytes) {
        throw new BuildFailure(
          'BUNDLE_TOO_LARGE',
          `The artifact is ${packed.bytes.length} bytes (${mib(packed.bytes.length)} MiB) as tar.gz, over the ${maxArtifactBytes}-byte (${mib(maxArtifactBytes)} MiB) limit (BROWSERFN_MAX_ARTIFACT_BYTES). ` +
            'Remove unused or heavy dependencies (browser automation packages are provided by the runtime and left out).',
        );
      }
      return { bytes: packed.bytes, runtimePackages: compiled.runtimePackages };
    });
    signal.throwIfAborted();

    const functions = await steps.run('introspect', async () => {
      logs.add('info', 'Discovering Functions (importing the entry with BB_FUNCTIONS_PHASE=introspect)');
      const manifests = await introspectBundle({
        bundlePath: join(projectDir, ARTIFACT_MAIN),
        workDir: outDir,
        codeDir: projectDir,
        homeDir: layout.homeDir,
        tmpDir: layout.tmpDir,
        // Linked only now: while compiling, the project must not resolve packages from the runtime modules.
        runtimeModules: linkRuntimeModules(podDir, this.settings.runtimeModulesDir),
        agentEnv: this.agentEnv,
        logs,
        timeoutSeconds: this.limits.introspectSeconds,
        signal,
      });
      return builtFunctionsOf(manifests, input.entrypoint);
    });
    logs.add('info', `Built ${functions.length} Function(s): ${functions.map((fn) => fn.name).join(', ')}`);
    signal.throwIfAborted();
    const stored = await steps.run('upload', () => this.#controlPlane(() => this.control.putArtifact(artifact.bytes), 'store the artifact'));
    logs.add('info', `Stored the artifact: ${stored.size} bytes, sha256 ${stored.sha256}`);
    return { kind: 'build', phase: 'COMPLETED', functions, artifact: stored, runtimePackages: artifact.runtimePackages, logs: logs.entries() };
  }

  async #controlPlane<T>(call: () => Promise<T>, what: string): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new BuildFailure('INTERNAL_ERROR', `could not ${what}: ${(error as Error).message}`);
    }
  }
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(2);
}
