// How the build runs `npm ci`: settings that decide which programs npm starts and which paths it
// uses are forced on the command line (npm's highest-priority config layer, above the operator's
// npm_config_* variables and any .npmrc), checked against npm 11's config definitions.
// The user config is a file the build writes (the project's allowed lines); the global config is
// the operator's (BROWSERFN_NPM_GLOBALCONFIG); the project's .npmrc is never read.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A program that runs nothing: what npm gets for every program it must not start during `npm ci`. */
export const NO_PROGRAM = '/bin/false';

export interface NpmPaths {
  projectDir: string;
  cacheDir: string;
  /** Folder the build owns for npm's config files and logs. */
  configDir: string;
  /** The operator's global npm config (registry, cafile, proxy...). */
  globalConfig: string;
}

/** Where npm run by this Node keeps its global config when nothing says otherwise: `<prefix>/etc/npmrc`. */
export function operatorGlobalConfig(env: NodeJS.ProcessEnv): string {
  return env.BROWSERFN_NPM_GLOBALCONFIG || join(dirname(dirname(process.execPath)), 'etc', 'npmrc');
}

/** Keys the command line forces; the project can never set them. */
export const FORCED_NPM_KEYS: ReadonlySet<string> = new Set([
  'ignore-scripts',
  'audit',
  'fund',
  'update-notifier',
  'progress',
  'allow-git',
  'git',
  'script-shell',
  'shell',
  'node-gyp',
  'node-options',
  'editor',
  'browser',
  'viewer',
  'init-module',
  'prefix',
  'global',
  'location',
  'cache',
  'userconfig',
  'globalconfig',
  'logs-dir',
]);

export function npmCiArguments(paths: NpmPaths): string[] {
  const forced: Record<string, string> = {
    // No install scripts, no git: nothing from a package or the project runs.
    'ignore-scripts': 'true',
    'allow-git': 'none',
    // Programs npm could start; none is needed by `npm ci --ignore-scripts`.
    git: NO_PROGRAM,
    'script-shell': NO_PROGRAM,
    shell: NO_PROGRAM,
    'node-gyp': NO_PROGRAM,
    'node-options': '',
    editor: NO_PROGRAM,
    browser: 'false',
    viewer: NO_PROGRAM,
    'init-module': join(paths.configDir, 'init.js'),
    // Paths: the project folder (no walking up to a workspace root outside it), and folders the build owns.
    prefix: paths.projectDir,
    global: 'false',
    location: 'project',
    cache: paths.cacheDir,
    userconfig: join(paths.configDir, 'npmrc'),
    globalconfig: paths.globalConfig,
    'logs-dir': join(paths.configDir, 'logs'),
    audit: 'false',
    fund: 'false',
    'update-notifier': 'false',
    progress: 'false',
  };
  return ['ci', ...Object.entries(forced).map(([key, value]) => `--${key}=${value}`)];
}

/** Writes npm's user config: the project's allowed lines. */
export function writeNpmConfig(paths: NpmPaths, userLines: string[]): void {
  mkdirSync(join(paths.configDir, 'logs'), { recursive: true });
  writeFileSync(join(paths.configDir, 'npmrc'), userLines.map((line) => `${line}\n`).join(''), { mode: 0o600 });
}
