// Extracts the uploaded project archive only if every entry stays inside the target: no absolute
// paths, no "..", no links leading out, no device files, and within size and entry limits.
// The whole archive is checked before anything is written.
import { mkdirSync } from 'node:fs';
import { posix } from 'node:path';
import { Parser, Unpack, type ReadEntry } from 'tar';
import { BuildFailure } from './build-failure.js';
import type { ARCHIVE_LIMITS } from './build-limits.js';

export type ArchiveLimits = { [K in keyof typeof ARCHIVE_LIMITS]: number };

export interface ArchiveSummary {
  entries: number;
  bytes: number;
}

const ALLOWED_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink', 'Link']);

export async function extractProjectArchive(archive: Buffer, targetDir: string, limits: ArchiveLimits): Promise<ArchiveSummary> {
  if (archive.length > limits.maxArchiveBytes) {
    throw invalid(`the archive is ${archive.length} bytes, over the ${limits.maxArchiveBytes}-byte limit; leave build output and data files out of the project`);
  }
  const summary = await checkArchive(archive, limits);
  mkdirSync(targetDir, { recursive: true });
  await unpack(archive, targetDir);
  return summary;
}

function checkArchive(archive: Buffer, limits: ArchiveLimits): Promise<ArchiveSummary> {
  return new Promise((resolve, reject) => {
    const summary: ArchiveSummary = { entries: 0, bytes: 0 };
    let refused: BuildFailure | undefined;
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        summary.entries += 1;
        summary.bytes += entry.size ?? 0;
        const problem =
          entryProblem(entry) ??
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
    parser.on('end', () => (refused ? reject(refused) : resolve(summary)));
    parser.end(archive);
  });
}

function entryProblem(entry: ReadEntry): string | undefined {
  const path = entry.path;
  if (!ALLOWED_TYPES.has(entry.type)) return `"${path}" is a ${entry.type} entry; only files, directories and links are allowed`;
  if (isAbsolute(path)) return `"${path}" is an absolute path`;
  if (hasParentSegment(path)) return `"${path}" contains ".."`;
  if (entry.type === 'SymbolicLink' || entry.type === 'Link') {
    const target = entry.linkpath ?? '';
    if (isAbsolute(target)) return `link "${path}" points to the absolute path "${target}"`;
    const resolved = entry.type === 'Link' ? posix.normalize(target) : posix.normalize(posix.join(posix.dirname(path), target));
    if (resolved === '..' || resolved.startsWith('../')) return `link "${path}" points outside the project ("${target}")`;
  }
  return undefined;
}

function isAbsolute(path: string): boolean {
  return path.startsWith('/') || path.startsWith('\\') || /^[a-zA-Z]:/.test(path);
}

function hasParentSegment(path: string): boolean {
  return path.split(/[/\\]/).includes('..');
}

function unpack(archive: Buffer, targetDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // strict: anything node-tar would only warn about (and skip) fails the build instead.
    const unpacker = new Unpack({ cwd: targetDir, strict: true, preserveOwner: false });
    unpacker.on('error', (error: Error) => reject(invalid(`the archive cannot be extracted: ${error.message}`)));
    unpacker.on('close', () => resolve());
    unpacker.end(archive);
  });
}

function invalid(message: string): BuildFailure {
  return new BuildFailure('INVALID_ARCHIVE', `Invalid project archive: ${message}`);
}
