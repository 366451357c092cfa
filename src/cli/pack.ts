// Packs a project for upload the way the widely used CLI does: the project folder without
// dependencies, VCS data, secrets, logs, build output, archives, editor folders or .gitignored files.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
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

/** The project root is the nearest folder above the entry that holds a package.json. */
export function findProjectRoot(entry: string): string {
  let dir = dirname(resolve(entry));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return dirname(resolve(entry));
    dir = parent;
  }
}

export async function packProject(entry: string): Promise<PackedProject> {
  const entryPath = resolve(entry);
  if (!existsSync(entryPath) || !statSync(entryPath).isFile()) throw new Error(`Entry file ${entry} does not exist`);
  const root = findProjectRoot(entryPath);
  const rules = ignore().add(ALWAYS_EXCLUDED);
  const gitignore = join(root, '.gitignore');
  if (existsSync(gitignore)) rules.add(readFileSync(gitignore, 'utf8'));

  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      const rel = relative(root, abs).split(sep).join('/');
      if (entry.isDirectory()) {
        if (!rules.ignores(rel + '/')) walk(abs);
      } else if (entry.isFile() && !rules.ignores(rel)) {
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
