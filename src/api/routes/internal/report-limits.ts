// How large a pod's report may be, per kind of pod: the parts the control plane keeps (see
// outcome-limits.ts and build-limits.ts; the pod fits its report to them before sending) plus
// room for the envelope. Anything larger is refused with 413 before it is buffered.
import { OUTCOME_LIMITS } from '../../../functions/outcome-limits.js';
import { OUTPUT_LIMITS } from '../../../build/build-limits.js';
import { MAX_CAUSE_MESSAGE_CHARS } from '../../../runtime/pod-agent/report-fit.js';

const base64Length = (bytes: number): number => 4 * Math.ceil(bytes / 3);
/** A cause message in JSON (6 bytes per character at worst, for \u escapes), phase, timestamps, keys. */
const ENVELOPE_BYTES = 6 * MAX_CAUSE_MESSAGE_CHARS + 16 * 1024;

export const REPORT_BODY_LIMITS = {
  invocation: OUTCOME_LIMITS.resultsBytes + OUTCOME_LIMITS.logsBytes + OUTCOME_LIMITS.sessionLogsBytes + ENVELOPE_BYTES,
  /** The bundle must fit one ConfigMap beside the report, which leaves the function manifests little room. */
  build: base64Length(OUTPUT_LIMITS.maxBundleGzipBytes) + OUTCOME_LIMITS.logsBytes + 256 * 1024 + ENVELOPE_BYTES,
} as const;
