// Size caps on what a pod reports and the control plane keeps: an invocation's outcome and a build's
// output must each fit one Kubernetes ConfigMap (1 MiB). Pods fit their reports to these caps before
// sending, and the façade refuses anything larger before reading it, so both sides share them here.
import type { InvocationReport, LogEntry, SessionLogEntry } from './reports.js';
import { nestingDepth } from './nesting.js';

export const OUTCOME_LIMITS = {
  resultsBytes: 512 * 1024,
  logsBytes: 192 * 1024,
  sessionLogsBytes: 256 * 1024,
  /** Results and a cause never come together, so the four caps leave room for the outcome's envelope. */
  sessionMetricsBytes: 32 * 1024,
} as const;

export const BUILD_OUTPUT_LIMITS = {
  maxFunctions: 100,
  /** One manifest file (name, sessionConfig, parametersSchema). */
  maxManifestBytes: 64 * 1024,
} as const;

/** Deepest nesting of a handler's results (the report around them stays within the façade's request limit). */
export const MAX_RESULTS_NESTING = 64;

/** Longest cause message a pod sends; longer ones are cut with a marker. */
export const MAX_CAUSE_MESSAGE_CHARS = 8 * 1024;

/** A cause message in JSON (6 bytes per character at worst, for \u escapes), phase, timestamps, keys. */
const ENVELOPE_BYTES = 6 * MAX_CAUSE_MESSAGE_CHARS + 16 * 1024;

/** The largest report body per kind of pod; the report route refuses larger ones unread (413). */
export const REPORT_BODY_LIMITS = {
  invocation: OUTCOME_LIMITS.resultsBytes + OUTCOME_LIMITS.logsBytes + OUTCOME_LIMITS.sessionLogsBytes + OUTCOME_LIMITS.sessionMetricsBytes + ENVELOPE_BYTES,
  /**
   * Logs, the Function manifests (name, sessionConfig, parameter schema) and the artifact's sha256
   * and size; the artifact's bytes go by their own streamed route. The output ConfigMap keeps
   * logs + report within 1 MiB.
   */
  build: OUTCOME_LIMITS.logsBytes + 256 * 1024 + ENVELOPE_BYTES,
} as const;

/** The largest session records body (POST …/session-records); larger ones are refused unread (413). */
export const SESSION_RECORDS_BODY_LIMIT = OUTCOME_LIMITS.sessionLogsBytes + OUTCOME_LIMITS.sessionMetricsBytes + 16 * 1024;

/** Over-large results fail the invocation with a message, rather than being cut. */
export function capResults(report: InvocationReport): InvocationReport {
  if (report.results === undefined) return report;
  if (nestingDepth(report.results, MAX_RESULTS_NESTING) > MAX_RESULTS_NESTING) {
    return { ...report, phase: 'FAILED', results: undefined, cause: { code: 'WORKLOAD_ERROR', message: `The handler returned JSON nested more than ${MAX_RESULTS_NESTING} levels deep; return flatter results` } };
  }
  const size = Buffer.byteLength(JSON.stringify(report.results));
  if (size <= OUTCOME_LIMITS.resultsBytes) return report;
  return {
    ...report,
    phase: 'FAILED',
    results: undefined,
    cause: { code: 'WORKLOAD_ERROR', message: `The handler returned ${size} bytes of JSON; results are limited to ${OUTCOME_LIMITS.resultsBytes} bytes` },
  };
}

/** Keeps the newest console log entries that fit, with a first entry saying how many were dropped. */
export function capLogs(entries: LogEntry[], limitBytes: number): LogEntry[] {
  return capEntries(entries, limitBytes, (dropped) => droppedLogsMarker(dropped, limitBytes, entries[dropped]?.timestamp));
}

/** The first log entry when `dropped` earlier ones were not kept, dated as the first kept one when there is one. */
export function droppedLogsMarker(dropped: number, limitBytes: number, timestamp = new Date().toISOString()): LogEntry {
  return { level: 'warn', message: `[${dropped} earlier log entries dropped: logs are limited to ${limitBytes} bytes]`, timestamp };
}

/** An entry's share of a cap: its JSON and a separator. */
export function reportedBytes(entry: unknown): number {
  return Buffer.byteLength(JSON.stringify(entry)) + 1;
}

/**
 * reportedBytes(entry) for an entry whose `params` (defined; its one large part) are already
 * serialized as `paramsJson`, without serializing them again: the session recorder measures every
 * CDP event as it comes.
 */
export function reportedBytesWithParams(entry: { params: unknown }, paramsJson: string): number {
  // The same key order with a one-character value in place of the params.
  return Buffer.byteLength(JSON.stringify({ ...entry, params: 0 })) - 1 + Buffer.byteLength(paramsJson) + 1;
}

/** Keeps the newest recorded session events that fit; the first entry, an event of its own, says how many were dropped. */
export function capSessionLogs(entries: SessionLogEntry[], limitBytes: number): SessionLogEntry[] {
  return capEntries(entries, limitBytes, (dropped) => ({
    method: SESSION_LOG_DROPPED_METHOD,
    timestamp: Date.now(),
    params: { dropped, message: `${dropped} earlier session events dropped: the recorded session is limited to ${limitBytes} bytes` },
  }));
}

/** The method of the marker event that stands for session events cut by the size cap. */
export const SESSION_LOG_DROPPED_METHOD = 'browserfn.eventsDropped';

function capEntries<T>(entries: T[], limitBytes: number, marker: (dropped: number) => T): T[] {
  let size = 0;
  let keepFrom = entries.length;
  while (keepFrom > 0) {
    const next = reportedBytes(entries[keepFrom - 1]);
    if (size + next > limitBytes) break;
    size += next;
    keepFrom -= 1;
  }
  if (keepFrom === 0) return entries;
  return [marker(keepFrom), ...entries.slice(keepFrom)];
}
