// Packs a project for upload the way the widely used CLI does: the project folder without
// dependencies, VCS data, secrets, logs, build output, archives, editor folders or .gitignored files.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import ignore from 'ignore';
import { create } from 'tar';

const ALWAYS_EXCLUDED = [
  'node_modules/',
  '.git/',
  '.env*',
  '*.log',
  'dist/',
  'build/',
  '*.tar',
  '*.tar.gz',
  '*.tgz',
  '*.zip',
  '.idea/',
  '.vscode/',
  '.DS_Store',
  '.browserbase/',
];

export interface PackedProject {
  root: string;
  /** The entry file relative to the root, with forward slashes. */
  entrypoint: string;
  files: string[];
  archive: Buffer;
}

/**
 * The project root is the nearest folder above the entry that holds a package.json, or the root of
 * the npm workspace that folder belongs to (whose package.json lists it under "workspaces" and
 * whose lockfile installs it).
 */
export function findProjectRoot(entry: string): string {
  const packageDir = nearestPackageDir(dirname(resolve(entry)));
  if (!packageDir) return dirname(resolve(entry));
  for (let dir = dirname(packageDir); dir !== dirname(dir); dir = dirname(dir)) {
    if (workspacePatterns(dir).some((pattern) => matchesWorkspace(relative(dir, packageDir).split(sep), pattern.split('/')))) return dir;
  }
  return packageDir;
}

function nearestPackageDir(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dir === dirname(dir)) return undefined;
  }
}

/** The "workspaces" globs of the package.json in `dir` (npm's array or Yarn's { packages }). */
function workspacePatterns(dir: string): string[] {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { workspaces?: unknown };
    const workspaces = manifest.workspaces;
    const patterns = Array.isArray(workspaces) ? workspaces : (workspaces as { packages?: unknown } | undefined)?.packages;
    return Array.isArray(patterns) ? patterns.filter((p): p is string => typeof p === 'string').map((p) => p.replace(/^\.\//, '').replace(/\/+$/, '')) : [];
  } catch {
    return [];
  }
}

/** Workspace globs: `*` is one path segment, `**` any number of them. */
function matchesWorkspace(path: string[], pattern: string[]): boolean {
  if (pattern.length === 0) return path.length === 0;
  const [head, ...rest] = pattern;
  if (head === '**') return path.some((_, i) => matchesWorkspace(path.slice(i), rest)) || matchesWorkspace([], rest);
  if (path.length === 0) return false;
  const segment = new RegExp(`^${head.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
  return segment.test(path[0]) && matchesWorkspace(path.slice(1), rest);
}

/** Whether packing the project at `root` takes `file` along (a file outside the project never goes). */
export function isPacked(root: string, file: string): boolean {
  const rel = relative(root, resolve(file));
  if (rel === '' || rel.split(sep)[0] === '..' || isAbsolute(rel)) return false;
  return !packingRules(root).ignores(rel.split(sep).join('/'));
}

function packingRules(root: string) {
  const rules = ignore().add(ALWAYS_EXCLUDED);
  const gitignore = join(root, '.gitignore');
  if (existsSync(gitignore)) rules.add(readFileSync(gitignore, 'utf8'));
  return rules;
}

/** Packs the project of `entry`; `alsoExcluded` (absolute paths) stay out whatever the rules say. */
export async function packProject(entry: string, alsoExcluded: string[] = []): Promise<PackedProject> {
  const entryPath = resolve(entry);
  if (!existsSync(entryPath) || !statSync(entryPath).isFile()) throw new Error(`Entry file ${entry} does not exist`);
  const root = findProjectRoot(entryPath);
  const rules = packingRules(root);
  const excluded = new Set(alsoExcluded.map((file) => resolve(file)));

  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      const rel = relative(root, abs).split(sep).join('/');
      if (entry.isDirectory()) {
        if (!rules.ignores(rel + '/')) walk(abs);
      } else if (entry.isFile() && !rules.ignores(rel) && !excluded.has(abs)) {
        files.push(rel);
      }
    }
  };
  walk(root);
  const entrypoint = relative(root, entryPath).split(sep).join('/');
  if (!files.includes(entrypoint)) throw new Error(`Entry file ${entrypoint} is excluded by the packing rules or .gitignore`);

  const chunks: Buffer[] = [];
  const stream = create({ gzip: true, cwd: root, portable: true }, files.sort());
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return { root, entrypoint, files, archive: Buffer.concat(chunks) };
}
