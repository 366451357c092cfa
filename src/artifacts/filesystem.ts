// The filesystem backend of the artifact store: one file per key under a root folder (the data
// dir's `artifacts/`). A write goes to a temporary file in `<root>/.tmp/` (same filesystem), is
// flushed, and is renamed over the key's file, so a crash leaves the old object or the new one,
// never a part.
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, relative, sep } from 'node:path';
import { assertArtifactKey, type ArtifactEntry, type ArtifactStore } from './port.js';

/** Starts with '.', which no key segment may: no key reaches it, and listings skip it. */
const TEMP_FOLDER = '.tmp';
/** Temp files older than this at start were left by a crash (a live write takes milliseconds). */
const STALE_TEMP_MS = 10 * 60_000;

export class FilesystemArtifactStore implements ArtifactStore {
  readonly backend = 'filesystem';

  private constructor(private readonly root: string) {}

  static async open(root: string): Promise<FilesystemArtifactStore> {
    await mkdir(join(root, TEMP_FOLDER), { recursive: true, mode: 0o700 });
    await removeStaleTempFiles(join(root, TEMP_FOLDER));
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
    const temp = join(this.root, TEMP_FOLDER, randomBytes(8).toString('hex'));
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
      if (!key.startsWith(prefix) || key.startsWith(`${TEMP_FOLDER}/`)) continue;
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
async function removeStaleTempFiles(folder: string): Promise<void> {
  for (const path of await filesUnder(folder)) {
    const info = await stat(path).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > STALE_TEMP_MS) await rm(path, { force: true });
  }
}
