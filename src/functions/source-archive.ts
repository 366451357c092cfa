// A hand-written Function manifest carries its handler source; the controller packs it into the
// same kind of archive the CLI uploads, so it goes through the same build.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create } from 'tar';

export const SOURCE_ENTRYPOINT = 'index.ts';

export async function archiveSource(source: string): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'browserfn-source-'));
  try {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'function-source', private: true, type: 'module' }));
    writeFileSync(join(dir, SOURCE_ENTRYPOINT), source);
    const chunks: Buffer[] = [];
    for await (const chunk of create({ gzip: true, cwd: dir, portable: true }, ['package.json', SOURCE_ENTRYPOINT]) as AsyncIterable<Buffer>) chunks.push(chunk);
    return Buffer.concat(chunks);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
