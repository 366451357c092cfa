// The artifact a build produces and a browser pod runs: the project folder after `npm ci` (its
// production node_modules tree as installed, the project's own files) with the compiled entry
// beside the original entry and a root module that imports it, as one tar.gz — what AWS Lambda
// ships. Packages run from where npm put them, so whatever they read beside themselves is there.
// Packages the runtime provides are pruned from every node_modules folder: Node's resolution then
// climbs to the pod's node_modules link (runtime-modules.ts). `playwright` and `puppeteer` become
// tiny packages re-exporting the runtime's -core packages. The storage layer sees only bytes.
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, extname, join, posix, relative, sep } from 'node:path';
import { create } from 'tar';
import { CORE_PACKAGE_OF, isRuntimePackage } from '../schemas/runtime-packages.js';

/** The module at the artifact's root that a pod runs: it imports the compiled entry. */
export const ARTIFACT_MAIN = '__browserfn_main.mjs';

/** The packages whose runtime -core package stands in for them. */

/** Not needed to run: type declarations, source maps, npm's bin links. */
const LEFT_OUT_FILE = /(\.d\.[cm]?ts|\.map|\.tsbuildinfo)$/;
const LEFT_OUT_DIRS = new Set(['.bin', '.cache']);
/** Never shipped from the project's top level: npm credentials, build-time state. */
const LEFT_OUT_AT_ROOT = new Set(['.npmrc', '.browserbase']);

/** `src/index.ts` → `<project>/src/index.browserfn.mjs`. */
export function compiledEntryPath(projectDir: string, entrypoint: string): string {
  const name = basename(entrypoint, extname(entrypoint));
  return join(projectDir, posix.dirname(entrypoint), `${name}.browserfn.mjs`);
}

export interface PruneResult {
  /** Runtime packages and aliases removed from the tree, by name. */
  removed: string[];
  /** Packages removed because only runtime packages depended on them. */
  onlyTheirs: number;
  /** The versions of the runtime packages and aliases removed (`name@version`, sorted), which the runtime's own replace. */
  replacedVersions: string[];
}

/**
 * Removes the runtime's packages from every node_modules folder, and the packages installed only
 * for them (by npm's record of the installed tree, node_modules/.package-lock.json); adds the
 * alias packages.
 */
export function pruneRuntimePackages(projectDir: string): PruneResult {
  const onlyTheirs = packagesOnlyRuntimeNeeds(projectDir);
  for (const location of onlyTheirs) rmSync(join(projectDir, location), { recursive: true, force: true });
  const removed = new Set<string>();
  const replacedVersions = new Set<string>();
  const pending = [projectDir];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      if (!stat.isDirectory()) continue;
      if (basename(dir) === 'node_modules' && (isRuntimePackage(name) || name in CORE_PACKAGE_OF)) {
        const version = installedVersion(path);
        if (version) replacedVersions.add(`${name}@${version}`);
        rmSync(path, { recursive: true, force: true });
        removed.add(name);
        continue;
      }
      pending.push(path);
    }
  }
  for (const [alias, core] of Object.entries(CORE_PACKAGE_OF)) if (removed.has(alias)) writeAliasPackage(join(projectDir, 'node_modules', alias), alias, core);
  return { removed: [...removed].sort(), onlyTheirs: onlyTheirs.length, replacedVersions: [...replacedVersions].sort() };
}

/** The version an installed package's manifest gives; undefined when it has none readable. */
export function installedVersion(packageDir: string): string | undefined {
  try {
    const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

interface LockedPackage {
  link?: boolean;
  resolved?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/**
 * Installed locations (`node_modules/a/node_modules/b`) that no dependency path from the project
 * (its packages and workspaces, dev dependencies included) reaches without passing through a
 * runtime package. Resolution follows Node's: the nearest node_modules up from the dependent.
 */
function packagesOnlyRuntimeNeeds(projectDir: string): string[] {
  let packages: Record<string, LockedPackage>;
  try {
    packages = (JSON.parse(readFileSync(join(projectDir, 'node_modules', '.package-lock.json'), 'utf8')) as { packages?: Record<string, LockedPackage> }).packages ?? {};
  } catch {
    return [];
  }
  const reached = new Set<string>();
  // The root, its workspaces and npm's links to them are where every path starts.
  const pending = ['', ...Object.keys(packages).filter((location) => !location.includes('node_modules') || packages[location].link)];
  while (pending.length > 0) {
    const location = pending.pop()!;
    if (reached.has(location)) continue;
    reached.add(location);
    const locked = location === '' ? readRootManifest(projectDir) : packages[location];
    if (!locked) continue;
    if (locked.link && locked.resolved) pending.push(locked.resolved);
    const names = [locked.dependencies, locked.optionalDependencies, locked.peerDependencies, location === '' || !location.includes('node_modules') ? locked.devDependencies : undefined]
      .flatMap((group) => Object.keys(group ?? {}));
    for (const name of names) {
      if (isRuntimePackage(name) || name in CORE_PACKAGE_OF) continue;
      const found = resolveLocked(packages, location, name);
      if (found !== undefined) pending.push(found);
    }
  }
  return Object.keys(packages).filter((location) => location.includes('node_modules/') && !reached.has(location) && !isRuntimeLocation(location));
}

function readRootManifest(projectDir: string): LockedPackage | undefined {
  try {
    return JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8')) as LockedPackage;
  } catch {
    return undefined;
  }
}

/** Where Node finds `name` required from the package at `from`. */
function resolveLocked(packages: Record<string, LockedPackage>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut >= 0 ? base.slice(0, cut) : base.startsWith('node_modules/') ? '' : parentFolder(base);
  }
}

/** A workspace folder's parent (`packages/fn` → `packages`, `packages` → ''). */
function parentFolder(location: string): string {
  const cut = location.lastIndexOf('/');
  return cut >= 0 ? location.slice(0, cut) : '';
}

/** The runtime packages themselves are removed by folder name, with their nested node_modules. */
function isRuntimeLocation(location: string): boolean {
  const name = location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
  return isRuntimePackage(name) || name in CORE_PACKAGE_OF;
}

function writeAliasPackage(dir: string, name: string, core: string): void {
  mkdirSync(dir, { recursive: true });
  const manifest = {
    name,
    version: '0.0.0-browserfn-alias',
    description: `${core}, which the Function runtime provides in place of ${name}`,
    main: 'index.js',
    exports: { '.': { import: './index.mjs', default: './index.js' }, './package.json': './package.json' },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, 'index.js'), `module.exports = require(${JSON.stringify(core)});\n`);
  writeFileSync(join(dir, 'index.mjs'), `export * from ${JSON.stringify(core)};\nexport { default } from ${JSON.stringify(core)};\n`);
}

/** Writes the root module that imports the compiled entry. */
export function writeArtifactMain(projectDir: string, compiledEntry: string): void {
  const specifier = `./${relative(projectDir, compiledEntry).split(sep).join('/')}`;
  writeFileSync(join(projectDir, ARTIFACT_MAIN), `import ${JSON.stringify(specifier)};\n`);
}

export interface PackedArtifact {
  bytes: Buffer;
  files: number;
  /** Sum of the packed files' sizes. */
  unpackedBytes: number;
}

/** The project folder as a tar.gz; links are kept as links (safe-extract.ts checks them on the way in). */
export async function packArtifact(projectDir: string): Promise<PackedArtifact> {
  let files = 0;
  let unpackedBytes = 0;
  const stream = create(
    {
      cwd: projectDir,
      gzip: { level: 6 },
      portable: true,
      filter: (path, stat) => {
        const parts = path.replace(/^\.\//, '').split('/');
        if (parts.length === 1 && LEFT_OUT_AT_ROOT.has(parts[0])) return false;
        const name = parts[parts.length - 1];
        if ('isDirectory' in stat && stat.isDirectory()) return !(LEFT_OUT_DIRS.has(name) && parts.includes('node_modules'));
        if (LEFT_OUT_FILE.test(name) && parts.includes('node_modules')) return false;
        if ('isFile' in stat && stat.isFile()) {
          files += 1;
          unpackedBytes += stat.size;
        }
        return true;
      },
    },
    ['.'],
  );
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return { bytes: Buffer.concat(chunks), files, unpackedBytes };
}
