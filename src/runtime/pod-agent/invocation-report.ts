// What a browser pod reports (POST …/report) when its invocation ends.
import type { LogEntry } from '../sandbox/log-collector.js';
import type { SessionLogEntry } from '../cdp-recorder/session-recorder.js';

export type InvocationCauseCode = 'TIMED_OUT' | 'WORKLOAD_ERROR' | 'INTERNAL_ERROR';

export interface InvocationCause {
  code: InvocationCauseCode;
  message: string;
}

export interface InvocationReport {
  kind: 'invocation';
  phase: 'COMPLETED' | 'FAILED';
  /** Absent when the handler returned undefined or null. */
  results?: unknown;
  cause?: InvocationCause;
  /** When the handler got the event (the agent's start when it never did). RFC 3339 ms. */
  startedAt: string;
  endedAt: string;
  logs: LogEntry[];
  sessionLogs: SessionLogEntry[];
}

export type InvocationOutcome = { phase: 'COMPLETED'; results?: unknown } | { phase: 'FAILED'; cause: InvocationCause };

export function failed(code: InvocationCauseCode, message: string): InvocationOutcome {
  return { phase: 'FAILED', cause: { code, message } };
}
