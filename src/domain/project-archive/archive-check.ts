// What a project archive (archive.tar.gz) may hold, judged from its headers before anything is
// written: only files, directories and links; no absolute paths, no "..", no links leading out
// (judged by where they really point, through other links: archive-tree.ts), nothing written
// through a link, within entry and size limits. The façade checks an upload with it, so a bad
// archive is a 400 at once, and the build agent checks again before it extracts.
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { Parser, type ReadEntry } from 'tar';
import { ArchiveTree } from './archive-tree.js';

export const ARCHIVE_CONTENT_LIMITS = {
  /** Sum of the sizes of the extracted files (a gzip bomb stops here, not at the disk). */
  maxExtractedBytes: 256 * 1024 * 1024,
  maxEntries: 20_000,
} as const;

export type ArchiveContentLimits = { [K in keyof typeof ARCHIVE_CONTENT_LIMITS]: number };

export interface ArchiveSummary {
  entries: number;
  bytes: number;
}

/** The archive breaks a rule; the message names the entry and the rule. */
export class ArchiveProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveProblem';
  }
}

const ALLOWED_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink', 'Link']);

/**
 * No project's sources nest deeper: near the system's 4096-byte path limit every file call costs
 * more (a probe's 881-byte archive of 20 branches 2000 folders deep held a build's CPU for its 10
 * minutes) and some fail.
 */
export const MAX_PATH_SEGMENTS = 64;
export const MAX_PATH_CHARS = 1024;

/** `archive`: the bytes, or a stream of them (read to its end unless refused early). */
export function checkProjectArchive(archive: Buffer | Readable, limits: ArchiveContentLimits = ARCHIVE_CONTENT_LIMITS): Promise<ArchiveSummary> {
  return new Promise((resolve, reject) => {
    const summary: ArchiveSummary = { entries: 0, bytes: 0 };
    const tree = new ArchiveTree();
    let refused: ArchiveProblem | undefined;
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
          refused = new ArchiveProblem(problem);
          parser.abort(refused);
        }
        entry.resume();
      },
    });
    parser.on('error', (error: Error) => reject(refused ?? new ArchiveProblem(`the archive cannot be read: ${error.message}`)));
    parser.on('abort', () => reject(refused ?? new ArchiveProblem('the archive cannot be read')));
    parser.on('end', () => {
      const linkProblem = refused ? undefined : tree.linkProblem();
      if (refused || linkProblem) reject(refused ?? new ArchiveProblem(linkProblem ?? ''));
      else if (summary.entries === 0) reject(new ArchiveProblem('the archive holds no files'));
      else resolve(summary);
    });
    if (Buffer.isBuffer(archive)) parser.end(archive);
    else {
      archive.on('error', (error: Error) => reject(new ArchiveProblem(`the archive cannot be read: ${error.message}`)));
      // An early refusal aborts the parser: stop reading the rest.
      parser.on('abort', () => archive.destroy());
      archive.pipe(parser);
    }
  });
}

function entryProblem(entry: ReadEntry, tree: ArchiveTree): string | undefined {
  const path = entry.path;
  if (!ALLOWED_TYPES.has(entry.type)) return `"${path}" is a ${entry.type} entry; only files, directories and links are allowed`;
  if (isAbsolute(path)) return `"${path}" is an absolute path`;
  if (hasParentSegment(path)) return `"${path}" contains ".."`;
  const normalized = normalize(path);
  if (normalized === '') return entry.type === 'Directory' ? undefined : `"${path}" names the project folder itself`;
  const segments = normalized.split('/').length;
  if (segments > MAX_PATH_SEGMENTS || normalized.length > MAX_PATH_CHARS) {
    return `"${normalized.slice(0, 80)}…" is ${segments} folders deep and ${normalized.length} characters long; paths are limited to ${MAX_PATH_SEGMENTS} folders and ${MAX_PATH_CHARS} characters`;
  }
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
