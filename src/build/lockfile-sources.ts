// Where the lockfile says packages come from. Builds install registry and tarball-URL packages and
// local folders inside the project. Git dependencies are refused: fetching them runs git and the
// package's `prepare` script, which is how a project could run code during the install. Local
// paths leading out of the project are refused: npm would copy or link files of the build host.
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { BuildFailure } from './build-failure.js';

/** How lockfiles record git sources (`resolved`, or lockfile v1's `version`); the `owner/repo` shorthand only appears in package.json. */
const GIT_SPEC = /^(git\+|git:|github:|gitlab:|bitbucket:|gist:)/i;
const LOCAL_SPEC = /^(file:|link:)/i;

interface LockEntry {
  version?: unknown;
  resolved?: unknown;
  link?: unknown;
  dependencies?: unknown;
}

export function checkLockfileSources(lockfilePath: string, lockfileName: string): void {
  let lock: { packages?: Record<string, LockEntry>; dependencies?: Record<string, LockEntry> };
  try {
    lock = JSON.parse(readFileSync(lockfilePath, 'utf8')) as typeof lock;
  } catch (error) {
    throw new BuildFailure('DEPENDENCY_INSTALL_FAILED', `${lockfileName} is not valid JSON: ${(error as Error).message}`);
  }
  const problems: string[] = [];
  for (const [location, entry] of Object.entries(lock.packages ?? {})) {
    if (leavesProject(location)) problems.push(`"${location}" is a folder outside the project`);
    const problem = entry && entrySourceProblem(entry);
    if (problem) problems.push(`${location || 'the project'} ${problem}`);
  }
  collectLegacy(lock.dependencies, problems);
  if (problems.length === 0) return;
  const shown = problems.slice(0, 5).join('; ') + (problems.length > 5 ? `; … and ${problems.length - 5} more` : '');
  throw new BuildFailure(
    'DEPENDENCY_INSTALL_FAILED',
    `${lockfileName} installs packages builds do not install: ${shown}. ` +
      'Builds install packages from a registry, from tarball URLs, or from folders inside the project; git dependencies are not supported — publish the package to a registry or vendor it into the project.',
  );
}

/** lockfileVersion 1: nested `dependencies` with git/file specs in `version`. */
function collectLegacy(dependencies: unknown, problems: string[]): void {
  if (typeof dependencies !== 'object' || dependencies === null) return;
  for (const [name, entry] of Object.entries(dependencies as Record<string, LockEntry>)) {
    if (typeof entry !== 'object' || entry === null) continue;
    const problem = entrySourceProblem(entry);
    if (problem) problems.push(`"${name}" ${problem}`);
    collectLegacy(entry.dependencies, problems);
  }
}

function entrySourceProblem(entry: LockEntry): string | undefined {
  for (const spec of [entry.resolved, entry.version]) {
    if (typeof spec !== 'string') continue;
    if (GIT_SPEC.test(spec)) return `is a git dependency (${spec.slice(0, 200)})`;
    if (LOCAL_SPEC.test(spec) && leavesProject(spec.replace(LOCAL_SPEC, ''))) return `comes from a path outside the project (${spec.slice(0, 200)})`;
  }
  // A link's `resolved` is a folder relative to the project root.
  if (entry.link === true && typeof entry.resolved === 'string' && leavesProject(entry.resolved)) {
    return `links to a folder outside the project (${entry.resolved.slice(0, 200)})`;
  }
  return undefined;
}

function leavesProject(path: string): boolean {
  if (path.startsWith('/') || path.startsWith('\\') || /^[a-zA-Z]:/.test(path) || path.startsWith('~')) return true;
  const normalized = posix.normalize(path.replace(/\\/g, '/'));
  return normalized === '..' || normalized.startsWith('../');
}
