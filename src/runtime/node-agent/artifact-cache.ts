// The node's cache of verified artifacts, one file per sha256: a browser pod whose artifact is
// here gets it handed over read-only instead of downloading it again. Files arrive through a
// temporary name and are renamed only once they hash to their name; the least recently used are
// evicted once the cache holds more than its size. A pod that already has a file keeps reading it
// when it is evicted (its sandbox binds the file itself, and unlinking leaves open files readable).
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

const SHA256 = /^[0-9a-f]{64}$/;

export interface CacheOutcome {
  file: string;
  /** Whether the file was already on the node. */
  hit: boolean;
}

export class ArtifactCache {
  /** One download per artifact at a time: pods starting together wait for the same one. */
  readonly #pending = new Map<string, Promise<string>>();

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o711 });
    // Downloads a previous process left half-way.
    for (const name of readdirSync(dir)) if (name.endsWith('.part')) rmSync(join(dir, name), { force: true });
  }

  /**
   * The cached file of `sha256`; `download(tempFile)` fetches it when missing and must refuse bytes
   * that do not hash to `sha256` (ControlPlaneClient.downloadArtifact does).
   */
  async provide(sha256: string, download: (tempFile: string) => Promise<unknown>): Promise<CacheOutcome> {
    if (!SHA256.test(sha256)) throw new Error(`"${sha256}" is not a sha256`);
    const file = join(this.dir, sha256);
    if (this.#touch(file)) return { file, hit: true };
    let pending = this.#pending.get(sha256);
    if (!pending) {
      pending = this.#fetch(sha256, file, download).finally(() => this.#pending.delete(sha256));
      this.#pending.set(sha256, pending);
    }
    return { file: await pending, hit: false };
  }

  async #fetch(sha256: string, file: string, download: (tempFile: string) => Promise<unknown>): Promise<string> {
    const temp = join(this.dir, `${sha256}.${process.pid}.${Date.now()}.part`);
    try {
      await download(temp);
      // Pods run as users of their own: they read it, nothing else of the cache.
      chmodSync(temp, 0o644);
      renameSync(temp, file);
    } finally {
      rmSync(temp, { force: true });
    }
    this.#evict(file);
    return file;
  }

  /** Marks the file as just used; false when it is not cached. */
  #touch(file: string): boolean {
    try {
      const now = new Date();
      utimesSync(file, now, now);
      return true;
    } catch {
      return false;
    }
  }

  #evict(keep: string): void {
    const files = readdirSync(this.dir)
      .filter((name) => SHA256.test(name))
      .map((name) => {
        const path = join(this.dir, name);
        const stat = statSync(path, { throwIfNoEntry: false });
        return { path, size: stat?.size ?? 0, used: stat?.mtimeMs ?? 0 };
      })
      .sort((a, b) => b.used - a.used);
    let total = 0;
    for (const entry of files) {
      total += entry.size;
      if (total > this.maxBytes && entry.path !== keep) rmSync(entry.path, { force: true });
    }
  }
}
