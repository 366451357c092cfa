// Users pods run as when the node agent runs as root: each pod its own unprivileged uid from a
// fixed high range, so that nothing of one pod (files, processes) belongs to another or to the server.
import { chownSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Per-pod uids (and gids): [first, first + count). */
export const POD_UID_RANGE = { first: 1_000_000, count: 100_000 } as const;
/** Build uids, one per project: the project's npm cache belongs to it, so builds of one project share it. */
export const PROJECT_UID_RANGE = { first: 1_100_000, count: 100_000 } as const;

export const runsAsRoot = (): boolean => process.getuid?.() === 0;

/** Hands out the lowest per-pod uid not in use by a running pod. */
export class PodUids {
  private readonly used = new Set<number>();

  acquire(): number {
    for (let uid = POD_UID_RANGE.first; uid < POD_UID_RANGE.first + POD_UID_RANGE.count; uid++) {
      if (this.used.has(uid)) continue;
      this.used.add(uid);
      return uid;
    }
    throw new Error(`all ${POD_UID_RANGE.count} pod uids are in use`);
  }

  release(uid: number): void {
    this.used.delete(uid);
  }
}

/**
 * The npm cache folder of one project (a namespace), made on first use. As root it belongs to the
 * project's build uid, which is read back from the folder's owner on later starts; a new project
 * gets the next free uid of the range.
 */
export function projectNpmCache(cacheRoot: string, namespace: string, asRoot: boolean): { dir: string; uid?: number } {
  const dir = join(cacheRoot, namespace);
  mkdirSync(cacheRoot, { recursive: true, mode: 0o711 });
  const existing = ownerOf(dir);
  if (!asRoot) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return { dir };
  }
  if (existing !== undefined && inRange(existing, PROJECT_UID_RANGE)) return { dir, uid: existing };
  const taken = new Set(readdirSync(cacheRoot).map((name) => ownerOf(join(cacheRoot, name))));
  let uid: number = PROJECT_UID_RANGE.first;
  while (taken.has(uid)) uid++;
  if (!inRange(uid, PROJECT_UID_RANGE)) throw new Error('no project uid left for the npm cache');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chownTree(dir, uid);
  return { dir, uid };
}

function inRange(uid: number, range: { first: number; count: number }): boolean {
  return uid >= range.first && uid < range.first + range.count;
}

function ownerOf(path: string): number | undefined {
  try {
    return statSync(path).uid;
  } catch {
    return undefined;
  }
}

/** chown -R (a cache made before sandboxing was on may hold the server's files). */
export function chownTree(path: string, uid: number): void {
  chownSync(path, uid, uid);
  if (!statSync(path).isDirectory()) return;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) chownTree(child, uid);
    else chownSync(child, uid, uid);
  }
}
