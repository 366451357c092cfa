// Files a pod deleted but keeps open: their blocks stay taken though no folder lists them, so a
// walk of the pod's folders misses them (a handler wrote 400 MiB past a 64 MiB limit that way).
// Found through /proc/<pid>/fd of the pod's processes, each counted once, and only those on the
// disk of the pod's folders: Chromium's shared memory files are deleted and open too, in tmpfs,
// where they count against the pod's memory.
import { lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';

const DELETED = ' (deleted)';

/** Every process's children, from /proc (read once per round of measurements). */
export function processChildren(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent is the 2nd field after the command, which is in parentheses and may hold anything.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const siblings = children.get(parent);
      if (siblings) siblings.push(Number(entry));
      else children.set(parent, [Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

/**
 * The pod's processes: those in its memory cgroup (`procsFile`, cgroup.procs) and every descendant
 * of `rootPids` (a pod without a cgroup; orphans of a sandboxed pod stay under its sandbox's init).
 */
export function podProcesses(rootPids: number[], procsFile: string | undefined, children: Map<number, number[]>): Set<number> {
  const pids = new Set<number>(rootPids);
  if (procsFile) {
    try {
      for (const line of readFileSync(procsFile, 'utf8').split('\n')) if (line) pids.add(Number(line));
    } catch {
      // The cgroup went with the pod.
    }
  }
  const queue = [...pids];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (!pids.has(child)) {
        pids.add(child);
        queue.push(child);
      }
    }
  }
  return pids;
}

export interface HeldFile {
  /** The path it had, as its process sees it (inside a sandbox, the mount path). */
  path: string;
  bytes: number;
}

/** The deleted files `pids` hold open on the device `device`, each once. */
export function heldDeletedFiles(pids: Iterable<number>, device: number): HeldFile[] {
  const seen = new Set<string>();
  const held: HeldFile[] = [];
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      const link = `/proc/${pid}/fd/${fd}`;
      try {
        const target = readlinkSync(link);
        if (!target.endsWith(DELETED)) continue;
        const stats = statSync(link);
        const inode = `${stats.dev}:${stats.ino}`;
        if (stats.dev !== device || !stats.isFile() || seen.has(inode)) continue;
        seen.add(inode);
        held.push({ path: target.slice(0, -DELETED.length), bytes: stats.blocks * 512 });
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return held;
}

/** The device of a folder, or undefined when it went. */
export function deviceOf(folder: string): number | undefined {
  try {
    return lstatSync(folder).dev;
  } catch {
    return undefined;
  }
}
