// The artifact a build would produce for a project without dependencies to install: the entry
// compiled beside itself, the root module, the folder packed (src/build/artifact.ts).
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledEntryPath, packArtifact, writeArtifactMain } from '../../src/build/artifact.js';
import { bundleEntry } from '../../src/build/bundle.js';
import { defaultRuntimeModulesDir } from '../../src/runtime/sandbox/runtime-modules.js';

export async function artifactOf(projectDir: string, entry: string): Promise<Buffer> {
  const copy = mkdtempSync(join(tmpdir(), 'browserfn-artifact-'));
  try {
    cpSync(projectDir, copy, { recursive: true });
    const outFile = compiledEntryPath(copy, entry);
    const bundle = await bundleEntry({ entryPath: join(copy, entry), entryName: entry, projectDir: copy, outFile, runtimeModulesDir: defaultRuntimeModulesDir() });
    writeFileSync(outFile, bundle.code);
    writeArtifactMain(copy, outFile);
    return (await packArtifact(copy)).bytes;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
