// Extracts a tar.gz (an uploaded project in a build pod, a built artifact in a browser pod) only if
// the whole of it passes the project-archive rules (src/domain/project-archive: every entry stays
// inside the target, "the project" in messages; within size and entry limits) before anything is
// written; after extraction every link is checked again by its real path, and set-id bits are dropped.
import { linkSync, lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Header, Parser, type ReadEntry } from 'tar';
import { ArchiveProblem, checkProjectArchive, type ArchiveSummary } from '../../domain/project-archive/archive-check.js';

export type { ArchiveSummary };

export interface ArchiveLimits {
  /** The tar.gz itself. */
  maxArchiveBytes: number;
  /** Sum of the sizes of the extracted files. */
  maxExtractedBytes: number;
  maxEntries: number;
}

/** The archive was refused; the message says why (nothing of it is left on disk). */
export class ArchiveRefused extends Error {}


export async function extractArchive(archive: Buffer, targetDir: string, limits: ArchiveLimits): Promise<ArchiveSummary> {
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

/**
 * Extracts a one-file archive made here into `scratchDir`, then removes it: a pool member runs the
 * extraction's code once before it is claimed, so its artifact's unpacking does not run that code
 * for the first time (7–12 ms in a new process, against 2–3.5 once it has run).
 */
export async function warmUpExtraction(scratchDir: string, limits: ArchiveLimits): Promise<void> {
  const body = Buffer.from('export {};\n');
  const header = new Header({ path: 'warm-up.mjs', mode: 0o644, size: body.length, type: 'File', mtime: new Date(0) });
  header.encode();
  const padding = Buffer.alloc((512 - (body.length % 512)) % 512);
  // Two zero blocks end a tar.
  const archive = gzipSync(Buffer.concat([header.block!, body, padding, Buffer.alloc(1024)]));
  try {
    await extractArchive(archive, scratchDir, limits);
  } finally {
    rmSync(scratchDir, { recursive: true, force: true });
  }
}

const OWNER_READ_WRITE = 0o600;

/** `./a//b/` → `a/b`; the project folder itself → ''. */
function normalize(path: string): string {
  const normalized = posix.normalize(path).replace(/\/+$/, '');
  return normalized === '.' ? '' : normalized.replace(/^\.\//, '');
}

/**
 * Writes the entries the check pass accepted, with plain synchronous file calls: every path is
 * already known to stay inside the target and never to pass through a link, so nothing is left
 * for a general-purpose unpacker to guard against (node-tar's took six times as long for
 * Stagehand's 4676 files). Set-user-ID, set-group-ID and sticky bits are dropped; times are not kept;
 * folders get the default mode and files are always their owner's to read and write (a file of mode
 * 000 failed a build that read it, as the platform's fault).
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
    entry.on('end', guarded(() => writeFileSync(path, Buffer.concat(chunks), { mode: ((entry.mode ?? 0o644) & 0o777) | OWNER_READ_WRITE })));
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
