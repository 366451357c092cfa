// The project's `.npmrc` is never read by npm: the build takes it out of the project and carries
// over only the lines whose key an operator allows (BROWSERFN_BUILD_NPMRC_ALLOW) — by default
// registries and registry credentials. Everything else (git=, script-shell=, cafile=, prefix=...)
// is left out and named in the build log.
import { lstatSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BuildFailure } from './build-failure.js';

/** Keys carried over when BROWSERFN_BUILD_NPMRC_ALLOW is unset. `*` stands for any run of characters. */
export const DEFAULT_NPMRC_ALLOW = ['registry', '@*:registry', '//*:_authToken', '//*:_auth', '//*:username', '//*:_password', 'legacy-peer-deps'];

export interface ProjectNpmrc {
  /** Lines to put in npm's user config, exactly as the project wrote them. */
  carried: string[];
  /** Keys left out, and why, for the build log. */
  leftOut: string[];
}

const MAX_NPMRC_BYTES = 64 * 1024;

export function npmrcAllowList(env: NodeJS.ProcessEnv): RegExp[] {
  const setting = env.BROWSERFN_BUILD_NPMRC_ALLOW;
  const patterns = setting === undefined ? DEFAULT_NPMRC_ALLOW : setting.split(',').map((p) => p.trim()).filter(Boolean);
  return patterns.map(keyPattern);
}

/** `*` matches any characters a key may hold, but never `=`, `[`, `]`, quotes, `$`, `\` or spaces. */
function keyPattern(pattern: string): RegExp {
  const escaped = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[^\\s=\\[\\]"\'$\\\\;#]+')}$`);
}

/**
 * Reads `<projectDir>/.npmrc` (if any), removes it from the project, and returns the allowed lines.
 * @param forcedKeys settings the build sets itself: never carried over, whatever the allow list says
 */
export function takeProjectNpmrc(projectDir: string, allow: RegExp[], forcedKeys: ReadonlySet<string>): ProjectNpmrc {
  const path = join(projectDir, '.npmrc');
  let text: string;
  try {
    const stat = lstatSync(path);
    if (!stat.isFile()) throw new BuildFailure('DEPENDENCY_INSTALL_FAILED', '.npmrc must be a regular file (not a link or a directory)');
    if (stat.size > MAX_NPMRC_BYTES) throw new BuildFailure('DEPENDENCY_INSTALL_FAILED', `.npmrc is ${stat.size} bytes; at most ${MAX_NPMRC_BYTES} are read`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { carried: [], leftOut: [] };
    throw error;
  }
  rmSync(path, { force: true });
  return filterNpmrc(text, allow, forcedKeys);
}

export function filterNpmrc(text: string, allow: RegExp[], forcedKeys: ReadonlySet<string>): ProjectNpmrc {
  const carried: string[] = [];
  const leftOut: string[] = [];
  let inSection = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    if (/^\[.*\]$/.test(line)) {
      inSection = true;
      continue;
    }
    const key = line.split('=', 1)[0].trim();
    const shown = describeKey(key);
    if (inSection) leftOut.push(`${shown} (inside a [section])`);
    else if (line.includes('${')) leftOut.push(`${shown} (reads an environment variable; builds have none)`);
    else if (forcedKeys.has(key)) leftOut.push(`${shown} (set by the build)`);
    else if (!allow.some((pattern) => pattern.test(key))) leftOut.push(`${shown} (not allowed by BROWSERFN_BUILD_NPMRC_ALLOW)`);
    else carried.push(line);
  }
  return { carried, leftOut };
}

/** The key for the log: credentials' keys carry no secret, but stay short. */
function describeKey(key: string): string {
  const printable = key.replace(/[^\x20-\x7e]/g, '?');
  return `"${printable.length > 80 ? `${printable.slice(0, 80)}…` : printable}"`;
}
