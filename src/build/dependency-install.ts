// Installs the project's dependencies exactly as locked: `npm ci` with install scripts disabled,
// so no package code runs during the install.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LogCollector } from '../runtime/sandbox/log-collector.js';
import { captureProcessOutput } from '../runtime/sandbox/output-capture.js';
import { exitOf, killProcessGroup, trackProcessGroup, describeExit } from '../runtime/sandbox/process-group.js';
import { BuildFailure } from './build-failure.js';
import { waitBounded } from './deadline.js';

export interface InstallOptions {
  projectDir: string;
  /** HOME of npm. */
  homeDir: string;
  tmpDir: string;
  cacheDir: string;
  timeoutSeconds: number;
  agentEnv: NodeJS.ProcessEnv;
  logs: LogCollector;
  signal: AbortSignal;
}

export const NPM_CI_ARGS = ['ci', '--ignore-scripts', '--no-audit', '--no-fund'];

const OTHER_LOCKFILES: Record<string, string> = {
  'pnpm-lock.yaml': 'pnpm',
  'yarn.lock': 'Yarn',
  'bun.lock': 'Bun',
  'bun.lockb': 'Bun',
};

/** Whether anything was installed. */
export async function installDependencies(options: InstallOptions): Promise<boolean> {
  const manifestPath = join(options.projectDir, 'package.json');
  if (!existsSync(manifestPath)) {
    options.logs.add('info', 'No package.json: no dependencies to install');
    return false;
  }
  const dependencyCount = countDependencies(manifestPath);
  if (dependencyCount === 0) {
    options.logs.add('info', 'package.json declares no dependencies: nothing to install');
    return false;
  }
  requireNpmLockfile(options.projectDir, dependencyCount);
  options.logs.add('info', `Installing ${dependencyCount} declared dependencies with npm ${NPM_CI_ARGS.join(' ')}`);
  await runNpmCi(options);
  options.logs.add('info', 'Dependencies installed');
  return true;
}

function countDependencies(manifestPath: string): number {
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new BuildFailure('DEPENDENCY_INSTALL_FAILED', `package.json is not valid JSON: ${(error as Error).message}`);
  }
  let count = 0;
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    const group = manifest[field];
    if (typeof group === 'object' && group !== null) count += Object.keys(group).length;
  }
  return count;
}

function requireNpmLockfile(projectDir: string, dependencyCount: number): void {
  if (existsSync(join(projectDir, 'package-lock.json')) || existsSync(join(projectDir, 'npm-shrinkwrap.json'))) return;
  const other = Object.keys(OTHER_LOCKFILES).find((file) => existsSync(join(projectDir, file)));
  if (other) {
    throw new BuildFailure(
      'DEPENDENCY_INSTALL_FAILED',
      `Found ${other} but no package-lock.json: builds install dependencies with npm ci, and ${OTHER_LOCKFILES[other]} lockfiles are not supported. ` +
        'Run `npm install --package-lock-only` in the project and publish again with package-lock.json included.',
    );
  }
  throw new BuildFailure(
    'DEPENDENCY_INSTALL_FAILED',
    `package.json declares ${dependencyCount} dependencies but the project has no package-lock.json. ` +
      'Run `npm install` in the project and publish again with package-lock.json included.',
  );
}

async function runNpmCi(options: InstallOptions): Promise<void> {
  const npm = spawn(options.agentEnv.BROWSERFN_NPM_PATH || 'npm', NPM_CI_ARGS, {
    cwd: options.projectDir,
    env: npmEnvironment(options),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (npm.pid !== undefined) trackProcessGroup(npm.pid);
  const exited = exitOf(npm);
  const stderrTail: string[] = [];
  npm.stderr?.on('data', (chunk: Buffer | string) => {
    stderrTail.push(...String(chunk).split('\n').filter(Boolean));
    stderrTail.splice(0, Math.max(0, stderrTail.length - 15));
  });
  const output = captureProcessOutput({ stdout: npm.stdout, stderr: npm.stderr, channel: null }, options.logs, { stderrLevel: 'warn' });
  const ended = await waitBounded(exited, options.timeoutSeconds, options.signal);
  if (ended !== 'exited') await killProcessGroup(npm);
  await output;
  if (ended === 'timeout') {
    throw new BuildFailure('TIMED_OUT', `npm ci did not finish within ${options.timeoutSeconds} seconds; check the registry is reachable and the dependency tree is not huge`);
  }
  if (ended === 'stopped') throw options.signal.reason as Error;
  const status = await exited;
  if (status.code !== 0) {
    throw new BuildFailure(
      'DEPENDENCY_INSTALL_FAILED',
      `npm ci ${describeExit(status)}. Make sure package-lock.json matches package.json (run \`npm install\` and publish both). npm said:\n${stderrTail.join('\n')}`,
    );
  }
}

/** npm sees no agent secrets: PATH, its own HOME/cache/tmp, and the operator's npm and proxy settings. */
function npmEnvironment(options: InstallOptions): Record<string, string> {
  const env: Record<string, string> = {
    PATH: options.agentEnv.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: options.homeDir,
    TMPDIR: options.tmpDir,
    npm_config_cache: options.cacheDir,
    npm_config_update_notifier: 'false',
    npm_config_progress: 'false',
  };
  for (const [name, value] of Object.entries(options.agentEnv)) {
    if (value === undefined) continue;
    if (/^npm_config_/i.test(name) && !/^npm_config_cache$/i.test(name)) env[name] = value;
    if (/^(https?_proxy|no_proxy)$/i.test(name)) env[name] = value;
  }
  return env;
}
