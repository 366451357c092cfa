// A pod fits its report to what the control plane keeps before sending it (the same caps the
// façade applies), so the report route can refuse anything larger without reading it.
import { capLogs, capResults, capSessionLogs, MAX_CAUSE_MESSAGE_CHARS, OUTCOME_LIMITS } from '../../schemas/report-limits.js';
import type { InvocationReport, PodReport, SessionRecordsReport } from '../../schemas/reports.js';
import { capSessionMetrics } from '../../schemas/session-metrics.js';

export function fitReport(report: PodReport): PodReport {
  const fitted: PodReport = report.kind === 'invocation' ? fitInvocation(report) : { ...report, logs: capLogs(report.logs, OUTCOME_LIMITS.logsBytes) };
  if (fitted.cause?.message && fitted.cause.message.length > MAX_CAUSE_MESSAGE_CHARS) {
    fitted.cause = { ...fitted.cause, message: `${fitted.cause.message.slice(0, MAX_CAUSE_MESSAGE_CHARS)}… [cut]` };
  }
  return fitted;
}

function fitInvocation(report: InvocationReport): InvocationReport {
  const capped = capResults(report);
  return { ...capped, logs: capLogs(capped.logs, OUTCOME_LIMITS.logsBytes) };
}

export function fitSessionRecords(records: SessionRecordsReport): SessionRecordsReport {
  return {
    sessionLogs: capSessionLogs(records.sessionLogs, OUTCOME_LIMITS.sessionLogsBytes),
    ...(records.metrics ? { metrics: capSessionMetrics(records.metrics, OUTCOME_LIMITS.sessionMetricsBytes) } : {}),
  };
}
