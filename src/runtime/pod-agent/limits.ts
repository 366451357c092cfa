// Size limits of what one invocation produces, so its report fits what the control plane stores.
import { DEFAULT_LOG_LIMITS } from '../sandbox/log-collector.js';
import { DEFAULT_RECORDER_LIMITS } from '../cdp-recorder/session-recorder.js';

export const INVOCATION_LIMITS = {
  /** Serialized result (the runtime API refuses larger response bodies). */
  maxResultBytes: 1024 * 1024,
  logs: DEFAULT_LOG_LIMITS,
  sessionLogs: DEFAULT_RECORDER_LIMITS,
  /** From start until the user code asks for its invocation (its bundle loaded). */
  loadTimeoutSeconds: 60,
  /** How long teardown waits for output still in the pipes after the user process is gone. */
  outputDrainMs: 2000,
} as const;

/**
 * The artifact a browser pod unpacks (a build's tar.gz). Builds keep artifacts far smaller; these
 * bound what a corrupted or forged one can do to the pod's disk.
 */
export const ARTIFACT_LIMITS = {
  maxArchiveBytes: 256 * 1024 * 1024,
  maxExtractedBytes: 1024 * 1024 * 1024,
  maxEntries: 200_000,
} as const;
