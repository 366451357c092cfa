// Limits of one build. Time limits (seconds) and the artifact size can be changed through the environment.
import { DEFAULT_MAX_ARTIFACT_BYTES } from '../config/settings.js';
import { ARCHIVE_CONTENT_LIMITS } from '../domain/project-archive/archive-check.js';
import { secondsFrom } from '../runtime/agent-common/agent-settings.js';

export const ARCHIVE_LIMITS = {
  /** The uploaded archive.tar.gz: the façade enforces BROWSERFN_MAX_ARCHIVE_BYTES (50 MiB by default); this is that setting's ceiling. */
  maxArchiveBytes: 1024 * 1024 * 1024,
  ...ARCHIVE_CONTENT_LIMITS,
} as const;

export interface BuildLimits {
  /** The whole build (BROWSERFN_BUILD_TIMEOUT_SECONDS, default 600). */
  buildSeconds: number;
  /** `npm ci` (BROWSERFN_NPM_TIMEOUT_SECONDS, default 300). */
  installSeconds: number;
  /** Importing the bundle to discover Functions (BROWSERFN_INTROSPECT_TIMEOUT_SECONDS, default 60). */
  introspectSeconds: number;
  /** The built artifact (BROWSERFN_MAX_ARTIFACT_BYTES, default 100 MiB; the operator passes its own setting). */
  maxArtifactBytes: number;
}

export function buildLimits(env: NodeJS.ProcessEnv): BuildLimits {
  const rawArtifactBytes = env.BROWSERFN_MAX_ARTIFACT_BYTES;
  const maxArtifactBytes = rawArtifactBytes ? Number(rawArtifactBytes) : DEFAULT_MAX_ARTIFACT_BYTES;
  if (!Number.isSafeInteger(maxArtifactBytes) || maxArtifactBytes < 1) throw new Error(`BROWSERFN_MAX_ARTIFACT_BYTES must be a positive number of bytes, got "${rawArtifactBytes}"`);
  return {
    maxArtifactBytes,
    buildSeconds: secondsFrom(env, 'BROWSERFN_BUILD_TIMEOUT_SECONDS', 600),
    installSeconds: secondsFrom(env, 'BROWSERFN_NPM_TIMEOUT_SECONDS', 300),
    introspectSeconds: secondsFrom(env, 'BROWSERFN_INTROSPECT_TIMEOUT_SECONDS', 60),
  };
}
