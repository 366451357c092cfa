// Size caps on what an invocation keeps: everything must fit one Kubernetes ConfigMap (1 MiB).
import type { InvocationReport } from '../schemas/reports.js';

export const OUTCOME_LIMITS = {
  resultsBytes: 512 * 1024,
  logsBytes: 192 * 1024,
  sessionLogsBytes: 256 * 1024,
} as const;

/** Over-large results fail the invocation with a message, rather than being cut. */
export function capResults(report: InvocationReport): InvocationReport {
  if (report.results === undefined) return report;
  const size = Buffer.byteLength(JSON.stringify(report.results));
  if (size <= OUTCOME_LIMITS.resultsBytes) return report;
  return {
    ...report,
    phase: 'FAILED',
    results: undefined,
    cause: { code: 'WORKLOAD_ERROR', message: `The handler returned ${size} bytes of JSON; results are limited to ${OUTCOME_LIMITS.resultsBytes} bytes` },
  };
}

/** Keeps the newest entries that fit, with a first entry saying how many were dropped. */
export function capLogs<T>(entries: T[], limitBytes: number): (T | { level: string; message: string; timestamp: string })[] {
  let size = 0;
  let keepFrom = entries.length;
  while (keepFrom > 0) {
    const next = Buffer.byteLength(JSON.stringify(entries[keepFrom - 1])) + 1;
    if (size + next > limitBytes) break;
    size += next;
    keepFrom -= 1;
  }
  if (keepFrom === 0) return entries;
  return [{ level: 'warn', message: `[${keepFrom} earlier log entries dropped: logs are limited to ${limitBytes} bytes]`, timestamp: new Date().toISOString() }, ...entries.slice(keepFrom)];
}
