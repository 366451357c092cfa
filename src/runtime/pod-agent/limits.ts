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

