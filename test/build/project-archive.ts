// archive.tar.gz of a project directory, as the publish step uploads it (no node_modules).
import { gzipSync } from 'node:zlib';
import { c as createTar, Header, Pax } from 'tar';

export async function archiveProject(dir: string): Promise<Buffer> {
  const stream = createTar({ gzip: true, cwd: dir, portable: true, filter: (path) => !/(^|\/)(node_modules|\.browserbase)(\/|$)/.test(path) }, ['.']);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface TarEntry {
  path: string;
  type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'FIFO';
  content?: string;
  linkpath?: string;
  mode?: number;
}

/** A gzip tar written header by header, so entries a normal tool would refuse to create can be tested. */
export function tarGz(entries: TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const content = Buffer.from(entry.content ?? '');
    const header = new Header({
      path: entry.path,
      type: entry.type ?? 'File',
      size: content.length,
      linkpath: entry.linkpath,
      mode: entry.mode ?? (entry.type === 'Directory' ? 0o755 : 0o644),
      mtime: new Date(0),
    });
    header.encode();
    // A path past ustar's 255 bytes goes in a PAX header before the entry, as tar writes it.
    if (Buffer.byteLength(entry.path) > 255) blocks.push(new Pax({ path: entry.path, mtime: new Date(0) }).encode());
    blocks.push(header.block!, content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}
