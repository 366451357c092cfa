// Watches the project folder (and the secrets file) with Node's fs.watch and calls back once
// changes have settled for a while; dependencies, VCS data and build output are ignored. Each folder
// gets a watch of its own (folders made later too): Node 20's recursive watch on Linux watches
// files, and loses a file that an editor replaces.
import { readdirSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

const IGNORED_FOLDERS = new Set(['node_modules', '.git', '.browserfn', '.browserbase', 'dist', 'build']);

export interface SourceWatcherOptions {
  root: string;
  /** Watched besides the project (the secrets file may live elsewhere). */
  extraFiles?: string[];
  debounceMs?: number;
  /** The changed paths, relative to the root (absolute for extra files). */
  onChange: (paths: string[]) => void;
}

export function watchSources(options: SourceWatcherOptions): { close(): void } {
  const root = resolve(options.root);
  const debounceMs = options.debounceMs ?? 300;
  const folders = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let changed = new Set<string>();
  let closed = false;

  const note = (path: string) => {
    if (closed) return;
    changed.add(path);
    clearTimeout(timer);
    timer = setTimeout(() => {
      syncFolders();
      const paths = [...changed];
      changed = new Set();
      options.onChange(paths);
    }, debounceMs);
  };
  const syncFolders = () => {
    const present = new Set(listFolders(root));
    for (const [dir, watcher] of folders) if (!present.has(dir)) (watcher.close(), folders.delete(dir));
    for (const dir of present) {
      if (folders.has(dir)) continue;
      try {
        folders.set(dir, watch(dir, (_event, name) => name && !IGNORED_FOLDERS.has(name.toString()) && note(relative(root, join(dir, name.toString())))));
      } catch {
        // Gone meanwhile: the next change rescans.
      }
    }
  };
  syncFolders();
  const files = (options.extraFiles ?? []).map((file) => {
    const full = resolve(file);
    // The folder, not the file: editors replace files, which ends a watch on the file itself.
    return watch(dirname(full), (_event, name) => name?.toString() === basename(full) && note(full));
  });
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const w of [...folders.values(), ...files]) w.close();
    },
  };
}

function listFolders(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const found = [dir];
  for (const entry of entries) {
    if (entry.isDirectory() && !IGNORED_FOLDERS.has(entry.name)) found.push(...listFolders(join(dir, entry.name)));
  }
  return found;
}
