// Measures the limited folders of running pods every few seconds, as the kubelet's eviction manager
// does, and calls back for a pod whose folder holds more than its limit. A folder is measured as
// `du` would, except that every entry counts at least one block: a flood of empty files or folders
// uses up the disk's inodes and makes every measurement longer, so it is bounded too.
import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import type { LimitedFolder } from './pod-disk.js';

/** Between the end of one round of measurements and the start of the next. */
const POLL_MS = 2000;
const MIN_ENTRY_BYTES = 4096;

export class DiskWatch {
  readonly #watched = new Map<object, { folders: LimitedFolder[]; onOver: (folder: LimitedFolder) => void }>();
  #timer: NodeJS.Timeout | undefined;

  /** `onOver` runs once, for the first of `folders` found holding more than its limit. `pod` is only the key. */
  watch(pod: object, folders: LimitedFolder[], onOver: (folder: LimitedFolder) => void): void {
    if (folders.length === 0) return;
    this.#watched.set(pod, { folders, onOver });
    this.#timer ??= setTimeout(() => void this.#round(), POLL_MS).unref();
  }

  unwatch(pod: object): void {
    this.#watched.delete(pod);
  }

  async #round(): Promise<void> {
    for (const [pod, { folders, onOver }] of this.#watched) {
      for (const folder of folders) {
        if (!this.#watched.has(pod)) break;
        if ((await folderBytes(folder.folder, folder.limitBytes)) <= folder.limitBytes) continue;
        this.unwatch(pod);
        onOver(folder);
      }
    }
    this.#timer = this.#watched.size > 0 ? setTimeout(() => void this.#round(), POLL_MS).unref() : undefined;
  }
}

/** The bytes `dir` holds on disk, counted until they pass `stopAbove`. Entries that went meanwhile count nothing. */
export async function folderBytes(dir: string, stopAbove: number): Promise<number> {
  let total = 0;
  const folders = [dir];
  while (folders.length > 0 && total <= stopAbove) {
    const folder = folders.pop()!;
    let entries;
    try {
      entries = await opendir(folder);
    } catch {
      continue;
    }
    try {
      for await (const entry of entries) {
        const path = join(folder, entry.name);
        const stats = await lstat(path).catch(() => undefined);
        if (!stats) continue;
        total += Math.max(stats.blocks * 512, MIN_ENTRY_BYTES);
        if (stats.isDirectory()) folders.push(path);
        if (total > stopAbove) break;
      }
    } catch {
      // The folder went while it was read.
    }
  }
  return total;
}
