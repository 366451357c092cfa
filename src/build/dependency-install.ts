// Installs the project's dependencies exactly as locked: `npm ci` with install scripts and git
// disabled and every program-running or path setting forced (npm-settings.ts), so neither package
// code nor the project's npm configuration runs anything during the install.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LogCollector } from '../runtime/sandbox/log-collector.js';
import { captureProcessOutput } from '../runtime/sandbox/output-capture.js';
import { baseChildEnvironment } from '../runtime/sandbox/child-environment.js';
import { exitOf, killProcessGroup, trackProcessGroup, describeExit } from '../runtime/sandbox/process-group.js';
import { BuildFailure } from './build-failure.js';
import { waitBounded } from './deadline.js';
import { checkLockfileSources } from './lockfile-sources.js';
import { npmCiArguments, operatorGlobalConfig, writeNpmConfig, FORCED_NPM_KEYS, type NpmPaths } from './npm-settings.js';
import { takeProjectNpmrc } from './project-npmrc.js';

export interface InstallOptions {
  projectDir: string;
  /** HOME of npm. */
  homeDir: string;
  tmpDir: string;
  cacheDir: string;
  /** Folder the build owns for npm's config files and logs (outside the project). */
  configDir: string;
  /** Keys of the project's .npmrc the operator allows (project-npmrc.ts). */
  npmrcAllow: RegExp[];
  timeoutSeconds: number;
  agentEnv: NodeJS.ProcessEnv;
  logs: LogCollector;
  signal: AbortSignal;
}

/** Lines of npm's error shown in the build's cause, out of the start of its stderr. */
const NPM_ERROR_LINES = 15;
const NPM_STDERR_KEPT_CHARS = 64 * 1024;

/** npm's first error lines (`npm error …`: code, package, registry answer), or its first lines of any kind. */
export function npmErrorHead(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  const errors = lines.filter((line) => /^npm (error|ERR!)/.test(line));
  return (errors.length > 0 ? errors : lines).slice(0, NPM_ERROR_LINES).join('\n');
}

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
  const lockfile = requireNpmLockfile(options.projectDir, dependencyCount);
  checkLockfileSources(join(options.projectDir, lockfile), lockfile);
  const paths: NpmPaths = { projectDir: options.projectDir, cacheDir: options.cacheDir, configDir: options.configDir, globalConfig: operatorGlobalConfig(options.agentEnv) };
  const npmrc = takeProjectNpmrc(options.projectDir, options.npmrcAllow, FORCED_NPM_KEYS);
  if (npmrc.carried.length > 0) options.logs.add('info', `Using ${npmrc.carried.length} setting(s) of the project's .npmrc`);
  if (npmrc.leftOut.length > 0) options.logs.add('warn', `Left out of the project's .npmrc: ${npmrc.leftOut.join(', ')}`);
  writeNpmConfig(paths, npmrc.carried);
  options.logs.add('info', `Installing the declared dependencies with npm ci --ignore-scripts (from ${lockfile})`);
  await runNpmCi(options, npmCiArguments(paths));
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
  // An npm workspace's root may declare nothing itself: its packages' dependencies are in its lockfile.
  const workspaces = manifest.workspaces;
  const workspacePatterns = Array.isArray(workspaces) ? workspaces : (workspaces as { packages?: unknown } | undefined)?.packages;
  if (Array.isArray(workspacePatterns)) count += workspacePatterns.length;
  return count;
}

/** The lockfile npm ci will use (npm prefers npm-shrinkwrap.json). */
function requireNpmLockfile(projectDir: string, dependencyCount: number): string {
  for (const file of ['npm-shrinkwrap.json', 'package-lock.json']) if (existsSync(join(projectDir, file))) return file;
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

async function runNpmCi(options: InstallOptions, args: string[]): Promise<void> {
  const npm = spawn(options.agentEnv.BROWSERFN_NPM_PATH || 'npm', args, {
    cwd: options.projectDir,
    env: npmEnvironment(options),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (npm.pid !== undefined) trackProcessGroup(npm.pid);
  const exited = exitOf(npm);
  // npm names the cause in its first error lines (code, package, registry answer); the rest is advice and log paths.
  let stderr = '';
  npm.stderr?.on('data', (chunk: Buffer | string) => {
    if (stderr.length < NPM_STDERR_KEPT_CHARS) stderr += String(chunk);
  });
  const output = captureProcessOutput({ stdout: npm.stdout, stderr: npm.stderr, channel: null }, options.logs, { stderrLevel: 'warn' });
  const ended = await waitBounded(exited, options.timeoutSeconds, options.signal);
  if (ended !== 'exited') await killProcessGroup(npm);
  await output.ended;
  if (ended === 'timeout') {
    throw new BuildFailure('TIMED_OUT', `npm ci did not finish within ${options.timeoutSeconds} seconds; check the registry is reachable and the dependency tree is not huge`);
  }
  if (ended === 'stopped') throw options.signal.reason as Error;
  const status = await exited;
  if (status.code !== 0) {
    throw new BuildFailure(
      'DEPENDENCY_INSTALL_FAILED',
      `npm ci ${describeExit(status)}. Make sure package-lock.json matches package.json (run \`npm install\` and publish both). npm said:\n${npmErrorHead(stderr)}`,
    );
  }
}

/**
 * npm sees no agent secrets: PATH, its own HOME and TMPDIR, and the operator's npm_config_*, proxy
 * and CA-certificate variables (the command line still overrides the forced settings).
 */
export function npmEnvironment(options: Pick<InstallOptions, 'homeDir' | 'tmpDir' | 'agentEnv'>): Record<string, string> {
  const env = baseChildEnvironment(options);
  for (const [name, value] of Object.entries(options.agentEnv)) {
    if (value === undefined) continue;
    if (/^npm_config_/i.test(name) || /^(https?_proxy|no_proxy|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR)$/i.test(name)) env[name] = value;
  }
  return env;
}
