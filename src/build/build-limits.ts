// Limits of one build. Time limits can be changed through the environment (seconds).
import { ARCHIVE_CONTENT_LIMITS } from '../domain/project-archive/archive-check.js';
import { secondsFrom } from '../runtime/agent-common/agent-settings.js';

export const ARCHIVE_LIMITS = {
  /** The uploaded archive.tar.gz. */
  maxArchiveBytes: 32 * 1024 * 1024,
  ...ARCHIVE_CONTENT_LIMITS,
} as const;

export interface BuildTimeLimits {
  /** The whole build (BROWSERFN_BUILD_TIMEOUT_SECONDS, default 600). */
  buildSeconds: number;
  /** `npm ci` (BROWSERFN_NPM_TIMEOUT_SECONDS, default 300). */
  installSeconds: number;
  /** Importing the bundle to discover Functions (BROWSERFN_INTROSPECT_TIMEOUT_SECONDS, default 60). */
  introspectSeconds: number;
}

export function buildTimeLimits(env: NodeJS.ProcessEnv): BuildTimeLimits {
  return {
    buildSeconds: secondsFrom(env, 'BROWSERFN_BUILD_TIMEOUT_SECONDS', 600),
    installSeconds: secondsFrom(env, 'BROWSERFN_NPM_TIMEOUT_SECONDS', 300),
    introspectSeconds: secondsFrom(env, 'BROWSERFN_INTROSPECT_TIMEOUT_SECONDS', 60),
  };
}
