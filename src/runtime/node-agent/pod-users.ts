// Users pods run as when the node agent runs as root: each pod its own unprivileged uid from the
// node agent's high range (host-ids.ts), so that nothing of one pod (files, processes) belongs to
// another or to the server.
import { chownSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { UidRange } from './host-ids.js';

export const runsAsRoot = (): boolean => process.getuid?.() === 0;

/** The last uid of a pod range: never handed to a pod, so trials of the sandbox run as it. */
export const trialUid = (range: UidRange): number => range.first + range.count - 1;

/** Hands out the lowest per-pod uid not in use by a running pod (all but the trial uid). */
export class PodUids {
  private readonly used = new Set<number>();

  constructor(private readonly range: UidRange) {}

  acquire(): number {
    for (let uid = this.range.first; uid < trialUid(this.range); uid++) {
      if (this.used.has(uid)) continue;
      this.used.add(uid);
      return uid;
    }
    throw new Error(`all ${this.range.count - 1} pod uids are in use`);
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
export function projectNpmCache(cacheRoot: string, namespace: string, projectUids: UidRange | undefined): { dir: string; uid?: number } {
  const dir = join(cacheRoot, namespace);
  mkdirSync(cacheRoot, { recursive: true, mode: 0o711 });
  const existing = ownerOf(dir);
  if (!projectUids) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return { dir };
  }
  if (existing !== undefined && inRange(existing, projectUids)) return { dir, uid: existing };
  const taken = new Set(readdirSync(cacheRoot).map((name) => ownerOf(join(cacheRoot, name))));
  let uid = projectUids.first;
  while (taken.has(uid)) uid++;
  if (!inRange(uid, projectUids)) throw new Error('no project uid left for the npm cache');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chownTree(dir, uid);
  return { dir, uid };
}

function inRange(uid: number, range: UidRange): boolean {
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
