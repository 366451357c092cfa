// What a folder holds on disk, as the disk watch counts it: its size on disk (`du`'s), with every
// file or folder counting at least one block of 4 KiB, since a flood of empty files uses up the
// disk's inodes and makes every measurement longer. Counted until past a limit, synchronously: it
// runs in the disk watch's worker thread.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const MIN_ENTRY_BYTES = 4096;

/** The bytes `dir` holds, counted until they pass `stopAbove`; entries that went meanwhile count nothing. */
export function folderBytes(dir: string, stopAbove: number): number {
  let total = 0;
  const folders = [dir];
  while (folders.length > 0 && total <= stopAbove) {
    const folder = folders.pop()!;
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(folder, name);
      let stats;
      try {
        stats = lstatSync(path);
      } catch {
        continue;
      }
      total += Math.max(stats.blocks * 512, MIN_ENTRY_BYTES);
      if (stats.isDirectory()) folders.push(path);
      if (total > stopAbove) break;
    }
  }
  return total;
}
