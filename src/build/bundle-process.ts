// Bundles in a child process (bundle-runner.js) whose environment holds only PATH, HOME and TMPDIR:
// esbuild's service process inherits it, so neither sees the agent's settings or tokens.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { exitOf, killProcessGroup, trackProcessGroup, describeExit } from '../runtime/sandbox/process-group.js';
import { baseChildEnvironment } from '../runtime/sandbox/child-environment.js';
import { BuildFailure } from './build-failure.js';
import type { BundleRequest, BundleResult } from './bundle.js';
import type { BundleRunnerResult } from './bundle-runner.js';
import { waitBounded } from './deadline.js';

export const BUNDLE_RUNNER_PATH = fileURLToPath(new URL('./bundle-runner.js', import.meta.url));

/** esbuild takes seconds; this only bounds a hung process (the build's own limit still applies). */
const BUNDLE_TIMEOUT_SECONDS = 300;
const MAX_RESULT_CHARS = 1024 * 1024;

export interface BundleProcessOptions {
  homeDir: string;
  tmpDir: string;
  agentEnv: NodeJS.ProcessEnv;
  signal: AbortSignal;
}

export async function bundleInChildProcess(request: BundleRequest, options: BundleProcessOptions): Promise<BundleResult> {
  const child = spawn(process.execPath, [BUNDLE_RUNNER_PATH, JSON.stringify(request)], {
    cwd: request.projectDir,
    env: baseChildEnvironment(options),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) trackProcessGroup(child.pid);
  const exited = exitOf(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout = (stdout + chunk).slice(-MAX_RESULT_CHARS)));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const ended = await waitBounded(exited, BUNDLE_TIMEOUT_SECONDS, options.signal);
  if (ended !== 'exited') await killProcessGroup(child);
  if (ended === 'stopped') throw options.signal.reason as Error;
  if (ended === 'timeout') throw new BuildFailure('TIMED_OUT', `Bundling did not finish within ${BUNDLE_TIMEOUT_SECONDS} seconds`);
  const status = await exited;
  let result: BundleRunnerResult;
  try {
    result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as BundleRunnerResult;
  } catch {
    throw new BuildFailure('INTERNAL_ERROR', `The bundler ${describeExit(status)} without a result: ${stderr.trim().slice(-1000)}`);
  }
  if (!result.ok) throw new BuildFailure(result.code, result.message);
  return { code: readFileSync(request.outFile), warnings: result.warnings, runtimePackages: result.runtimePackages };
}
