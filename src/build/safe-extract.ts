// The uploaded project archive, extracted by the agents' safe extraction; a refusal fails the build.
import { ArchiveRefused, extractArchive, type ArchiveLimits, type ArchiveSummary } from '../runtime/agent-common/safe-extract.js';
import { BuildFailure } from './build-failure.js';

export type { ArchiveLimits, ArchiveSummary };

export async function extractProjectArchive(archive: Buffer, targetDir: string, limits: ArchiveLimits): Promise<ArchiveSummary> {
  try {
    return await extractArchive(archive, targetDir, limits);
  } catch (error) {
    if (error instanceof ArchiveRefused) throw new BuildFailure('INVALID_ARCHIVE', `Invalid project archive: ${error.message}`);
    throw error;
  }
}
