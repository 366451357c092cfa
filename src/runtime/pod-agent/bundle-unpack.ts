// A browser pod's artifact (a build's tar.gz) unpacked into its code folder with an upload's checks
// (no links leading out, size caps): how the run and the head start both do it.
import { join } from 'node:path';
import { extractArchive } from '../agent-common/safe-extract.js';
import { ARTIFACT_MAIN } from '../../build/artifact.js';
import { ARTIFACT_LIMITS } from './artifact-limits.js';

export interface UnpackedBundle {
  /** The entry the code loader imports. */
  path: string;
  entries: number;
  bytes: number;
  /** How long the unpacking took. */
  ms: number;
}

export async function unpackBundle(artifact: Buffer, codeDir: string): Promise<UnpackedBundle> {
  const started = performance.now();
  const unpacked = await extractArchive(artifact, codeDir, ARTIFACT_LIMITS);
  return { path: join(codeDir, ARTIFACT_MAIN), entries: unpacked.entries, bytes: unpacked.bytes, ms: Math.round(performance.now() - started) };
}
