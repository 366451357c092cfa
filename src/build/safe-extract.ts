// Extracts the uploaded project archive only if the whole of it passes the project-archive rules
// (src/domain/project-archive) before anything is written; after extraction every link is checked
// again by its real path, and set-id bits are dropped.
import { lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Unpack } from 'tar';
import { ArchiveProblem, checkProjectArchive, type ArchiveSummary } from '../domain/project-archive/archive-check.js';
import { BuildFailure } from './build-failure.js';
import type { ARCHIVE_LIMITS } from './build-limits.js';

export type ArchiveLimits = { [K in keyof typeof ARCHIVE_LIMITS]: number };

export async function extractProjectArchive(archive: Buffer, targetDir: string, limits: ArchiveLimits): Promise<ArchiveSummary> {
  if (archive.length > limits.maxArchiveBytes) {
    throw invalid(`the archive is ${archive.length} bytes, over the ${limits.maxArchiveBytes}-byte limit; leave build output and data files out of the project`);
  }
  const summary = await checkProjectArchive(archive, limits).catch((err: unknown) => {
    throw err instanceof ArchiveProblem ? invalid(err.message) : err;
  });
  mkdirSync(targetDir, { recursive: true });
  await unpack(archive, targetDir);
  const escaping = linkLeavingTree(targetDir);
  if (escaping) {
    rmSync(targetDir, { recursive: true, force: true });
    throw invalid(escaping);
  }
  return summary;
}

function unpack(archive: Buffer, targetDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // strict: anything node-tar would only warn about (and skip) fails the build instead.
    const unpacker = new Unpack({
      cwd: targetDir,
      strict: true,
      preserveOwner: false,
      // No set-user-ID, set-group-ID or sticky bits on extracted files.
      filter: (_path, entry) => {
        if ('mode' in entry && typeof entry.mode === 'number') entry.mode &= 0o777;
        return true;
      },
    });
    unpacker.on('error', (error: Error) => reject(invalid(`the archive cannot be extracted: ${error.message}`)));
    unpacker.on('close', () => resolve());
    unpacker.end(archive);
  });
}

/** Every link of the extracted tree, by its real path: the first one leading out, if any. */
function linkLeavingTree(root: string): string | undefined {
  const realRoot = realpathSync(root);
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      if (stat.isDirectory()) pending.push(path);
      if (!stat.isSymbolicLink()) continue;
      let real: string;
      try {
        real = realpathSync(path);
      } catch {
        continue; // dangling: leads nowhere
      }
      const rel = relative(realRoot, real);
      if (rel === '..' || rel.startsWith(`..${sep}`) || rel.startsWith(sep)) {
        return `link "${relative(root, path)}" points outside the project ("${readlinkSync(path)}")`;
      }
    }
  }
  return undefined;
}

function invalid(message: string): BuildFailure {
  return new BuildFailure('INVALID_ARCHIVE', `Invalid project archive: ${message}`);
}
