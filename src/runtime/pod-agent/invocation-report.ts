// What a browser pod reports (POST …/report) when its invocation ends.
import type { InvocationReport } from '../../schemas/reports.js';

export type { InvocationReport };

export type InvocationCauseCode = 'TIMED_OUT' | 'WORKLOAD_ERROR' | 'INTERNAL_ERROR';

export interface InvocationCause {
  code: InvocationCauseCode;
  message: string;
}

export type InvocationOutcome = { phase: 'COMPLETED'; results?: unknown } | { phase: 'FAILED'; cause: InvocationCause };

export function failed(code: InvocationCauseCode, message: string): InvocationOutcome {
  return { phase: 'FAILED', cause: { code, message } };
}
