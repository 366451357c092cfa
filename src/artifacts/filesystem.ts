// The filesystem backend of the artifact store: one file per key under a root folder (the data
// dir's `artifacts/`). A write goes to a temporary file in the same folder, is flushed, and is
// renamed over the key's file, so a crash leaves the old object or the new one, never a part.
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, relative, sep } from 'node:path';
import { assertArtifactKey, type ArtifactEntry, type ArtifactStore } from './port.js';

/** Temporary files start with '.', which no key segment may: listings skip them, and a restart clears them. */
const TEMP_PREFIX = '.tmp-';

export class FilesystemArtifactStore implements ArtifactStore {
  readonly backend = 'filesystem';

  private constructor(private readonly root: string) {}

  static async open(root: string): Promise<FilesystemArtifactStore> {
    await mkdir(root, { recursive: true, mode: 0o700 });
    await removeTempFiles(root);
    return new FilesystemArtifactStore(root);
  }

  private pathOf(key: string): string {
    assertArtifactKey(key);
    const path = join(this.root, ...key.split('/'));
    // Belt and braces: the key rules already keep every path under the root.
    if (relative(this.root, path).startsWith('..')) throw new Error(`artifact key "${key}" leaves the store`);
    return path;
  }

  async put(key: string, body: Buffer): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temp = join(dirname(path), `${TEMP_PREFIX}${randomBytes(6).toString('hex')}`);
    const file = await open(temp, 'wx', 0o600);
    try {
      await file.writeFile(body);
      await file.sync();
    } finally {
      await file.close();
    }
    try {
      await rename(temp, path);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async list(prefix: string): Promise<ArtifactEntry[]> {
    assertArtifactKey(prefix, { prefix: true });
    const folder = prefix.endsWith('/') ? prefix.slice(0, -1) : dirname(prefix);
    const start = folder === '.' ? this.root : join(this.root, ...folder.split('/'));
    const entries: ArtifactEntry[] = [];
    for (const path of await filesUnder(start)) {
      const key = relative(this.root, path).split(sep).join('/');
      if (!key.startsWith(prefix) || key.split('/').some((s) => s.startsWith(TEMP_PREFIX))) continue;
      const info = await stat(path).catch(() => undefined);
      if (info) entries.push({ key, size: info.size, lastModifiedMs: info.mtimeMs });
    }
    return entries.sort((a, b) => a.key.localeCompare(b.key));
  }

  async close(): Promise<void> {}
}

async function filesUnder(folder: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** Writes a crash interrupted before their rename. */
async function removeTempFiles(root: string): Promise<void> {
  for (const path of await filesUnder(root)) {
    if (path.split(sep).at(-1)!.startsWith(TEMP_PREFIX)) await rm(path, { force: true });
  }
}
