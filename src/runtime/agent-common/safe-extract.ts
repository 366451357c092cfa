// Extracts a tar.gz (an uploaded project in a build pod, a built artifact in a browser pod) only if
// every entry stays inside the target ("the project" in messages): no absolute
// paths, no "..", no links leading out (judged by where they really point, through other links:
// archive-tree.ts), nothing written through a link, no device files, and within size and entry
// limits. The whole archive is checked before anything is written; after extraction every link is
// checked again by its real path, and set-id bits are dropped.
import { linkSync, lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import { ArchiveTree } from './archive-tree.js';

export interface ArchiveLimits {
  /** The tar.gz itself. */
  maxArchiveBytes: number;
  /** Sum of the sizes of the extracted files. */
  maxExtractedBytes: number;
  maxEntries: number;
}

/** The archive was refused; the message says why (nothing of it is left on disk). */
export class ArchiveRefused extends Error {}

export interface ArchiveSummary {
  entries: number;
  bytes: number;
}

const ALLOWED_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink', 'Link']);

export async function extractArchive(archive: Buffer, targetDir: string, limits: ArchiveLimits): Promise<ArchiveSummary> {
  if (archive.length > limits.maxArchiveBytes) {
    throw invalid(`the archive is ${archive.length} bytes, over the ${limits.maxArchiveBytes}-byte limit; leave build output and data files out of the project`);
  }
  const summary = await checkArchive(archive, limits);
  mkdirSync(targetDir, { recursive: true });
  await unpack(archive, targetDir);
  const escaping = linkLeavingTree(targetDir);
  if (escaping) {
    rmSync(targetDir, { recursive: true, force: true });
    throw invalid(escaping);
  }
  return summary;
}

function checkArchive(archive: Buffer, limits: ArchiveLimits): Promise<ArchiveSummary> {
  return new Promise((resolve, reject) => {
    const summary: ArchiveSummary = { entries: 0, bytes: 0 };
    const tree = new ArchiveTree();
    let refused: ArchiveRefused | undefined;
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        summary.entries += 1;
        summary.bytes += entry.size ?? 0;
        const problem =
          entryProblem(entry, tree) ??
          (summary.entries > limits.maxEntries ? `the archive has more than ${limits.maxEntries} entries` : undefined) ??
          (summary.bytes > limits.maxExtractedBytes ? `the archive holds more than ${limits.maxExtractedBytes} bytes of files` : undefined);
        if (problem && !refused) {
          refused = invalid(problem);
          parser.abort(refused);
        }
        entry.resume();
      },
    });
    parser.on('error', (error: Error) => reject(refused ?? invalid(`the archive cannot be read: ${error.message}`)));
    parser.on('abort', () => reject(refused ?? invalid('the archive cannot be read')));
    parser.on('end', () => {
      const linkProblem = refused ? undefined : tree.linkProblem();
      if (refused || linkProblem) reject(refused ?? invalid(linkProblem ?? ''));
      else resolve(summary);
    });
    parser.end(archive);
  });
}

function entryProblem(entry: ReadEntry, tree: ArchiveTree): string | undefined {
  const path = entry.path;
  if (!ALLOWED_TYPES.has(entry.type)) return `"${path}" is a ${entry.type} entry; only files, directories and links are allowed`;
  if (isAbsolute(path)) return `"${path}" is an absolute path`;
  if (hasParentSegment(path)) return `"${path}" contains ".."`;
  const normalized = normalize(path);
  if (normalized === '') return entry.type === 'Directory' ? undefined : `"${path}" names the project folder itself`;
  const target = entry.linkpath ?? '';
  if (entry.type === 'Link') {
    if (isAbsolute(target)) return `link "${path}" points to the absolute path "${target}"`;
    if (hasParentSegment(target)) return `link "${path}" points outside the project or through ".." ("${target}")`;
    return tree.hardLinkProblem(path, normalize(target)) ?? tree.add(normalized, { type: 'file' });
  }
  if (entry.type === 'SymbolicLink') {
    if (isAbsolute(target)) return `link "${path}" points to the absolute path "${target}"`;
    return tree.add(normalized, { type: 'symlink', target: target.replace(/\\/g, '/') });
  }
  return tree.add(normalized, { type: entry.type === 'Directory' ? 'dir' : 'file' });
}

/** `./a//b/` → `a/b`; the project folder itself → ''. */
function normalize(path: string): string {
  const normalized = posix.normalize(path).replace(/\/+$/, '');
  return normalized === '.' ? '' : normalized.replace(/^\.\//, '');
}

function isAbsolute(path: string): boolean {
  return path.startsWith('/') || path.startsWith('\\') || /^[a-zA-Z]:/.test(path);
}

function hasParentSegment(path: string): boolean {
  return path.split(/[/\\]/).includes('..');
}

/**
 * Writes the entries the check pass accepted, with plain synchronous file calls: every path is
 * already known to stay inside the target and never to pass through a link, so nothing is left
 * for a general-purpose unpacker to guard against (node-tar's took six times as long for
 * Stagehand's 4676 files). Set-user-ID, set-group-ID and sticky bits are dropped; times are not kept.
 */
async function unpack(archive: Buffer, targetDir: string): Promise<void> {
  const made = new Set<string>([targetDir]);
  const makeDir = (dir: string) => {
    if (made.has(dir)) return;
    mkdirSync(dir, { recursive: true });
    made.add(dir);
  };
  try {
    await new Promise<void>((resolve, reject) => {
      // A failing write (disk full, quota) stops the parser and rejects, rather than throwing out of a stream event.
      const guarded = (write: () => void) => () => {
        try {
          write();
        } catch (error) {
          reject(error as Error);
          parser.abort(error as Error);
        }
      };
      const parser: Parser = new Parser({ strict: true, onReadEntry: (entry: ReadEntry) => guarded(() => writeEntry(entry, targetDir, makeDir, guarded))() });
      parser.on('end', () => resolve());
      parser.on('error', reject);
      parser.end(archive);
    });
  } catch (error) {
    rmSync(targetDir, { recursive: true, force: true });
    throw invalid(`the archive cannot be extracted: ${(error as Error).message}`);
  }
}

function writeEntry(entry: ReadEntry, targetDir: string, makeDir: (dir: string) => void, guarded: (write: () => void) => () => void): void {
  const relative = normalize(entry.path);
  const path = join(targetDir, relative);
  if (relative === '' || entry.type === 'Directory') {
    makeDir(path);
    entry.resume();
    return;
  }
  makeDir(dirname(path));
  if (entry.type === 'SymbolicLink') {
    symlinkSync(entry.linkpath ?? '', path);
    entry.resume();
  } else if (entry.type === 'Link') {
    linkSync(join(targetDir, normalize(entry.linkpath ?? '')), path);
    entry.resume();
  } else {
    const chunks: Buffer[] = [];
    entry.on('data', (chunk: Buffer) => chunks.push(chunk));
    entry.on('end', guarded(() => writeFileSync(path, Buffer.concat(chunks), { mode: (entry.mode ?? 0o644) & 0o777 })));
  }
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

function invalid(message: string): ArchiveRefused {
  return new ArchiveRefused(message);
}
