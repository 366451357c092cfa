// One process at a time owns a store file. node-sqlite3-wasm locks a database with a `<file>.lock`
// directory, which a crashed process leaves behind and which would then refuse every later open
// with "database is locked". The owner file (`<file>.owner`, holding the pid) tells a stale lock
// from a live one.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const openInThisProcess = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(ownerFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(ownerFile, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Claims the file for this process; returns the release function. */
export function claimStoreFile(file: string): () => void {
  const path = resolve(file);
  if (openInThisProcess.has(path)) throw new Error(`store file ${path} is already open in this process; close it first`);
  const ownerFile = `${path}.owner`;
  for (let attempt = 0; ; attempt += 1) {
    try {
      writeFileSync(ownerFile, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const owner = readOwner(ownerFile);
      // Our own pid in the file is a previous incarnation (containers reuse pid 1).
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
        throw new Error(`store file ${path} is in use by process ${owner}; stop that process first (or delete ${ownerFile} if it is not browserfn)`);
      }
      rmSync(ownerFile, { force: true });
    }
  }
  // No live owner: any SQLite lock directory left on disk is stale.
  rmSync(`${path}.lock`, { recursive: true, force: true });
  openInThisProcess.add(path);
  return () => {
    openInThisProcess.delete(path);
    rmSync(ownerFile, { force: true });
  };
}
