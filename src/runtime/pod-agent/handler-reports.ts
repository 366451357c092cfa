// What the bodies a handler posts to the runtime API mean: its JSON result, or its error (the
// AWS Lambda runtime API's shape, as @browserbasehq/sdk-functions and this project's SDK send it).
import { nestingDepth } from '../../schemas/nesting.js';
import { MAX_RESULTS_NESTING } from '../../schemas/report-limits.js';
import { failed, type InvocationOutcome } from './invocation-report.js';

/** The handler's JSON result; empty and null mean "returned nothing". */
export function resultOutcome(body: string): InvocationOutcome {
  if (body.trim() === '') return { phase: 'COMPLETED' };
  try {
    const results: unknown = JSON.parse(body);
    // Checked before anything walks the results (redaction, the report): deep values overflow recursion.
    if (nestingDepth(results, MAX_RESULTS_NESTING) > MAX_RESULTS_NESTING) {
      return failed('WORKLOAD_ERROR', `The handler returned JSON nested more than ${MAX_RESULTS_NESTING} levels deep; return flatter results`);
    }
    return results === null ? { phase: 'COMPLETED' } : { phase: 'COMPLETED', results };
  } catch {
    return failed('WORKLOAD_ERROR', "The handler's result is not valid JSON; return a JSON-serializable value");
  }
}

/** The runtime API's error body; sdk-functions sends its stack as one multi-line element. */
export function parseErrorReport(body: string): { message: string; stack: string } {
  let report: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) report = parsed as Record<string, unknown>;
  } catch {
    return { message: body.slice(0, 1000) || 'The handler failed', stack: body };
  }
  const type = typeof report.errorType === 'string' && report.errorType ? report.errorType : 'Error';
  const message = typeof report.errorMessage === 'string' && report.errorMessage ? report.errorMessage : `The handler failed with ${type}`;
  const trace = Array.isArray(report.stackTrace) ? report.stackTrace.filter((line): line is string => typeof line === 'string') : [];
  const stack = trace.join('\n').trim();
  return { message, stack: stack || `${type}: ${message}` };
}

/** The line of an error dump that names the error ("TypeError: x is not a function"). */
export function errorHeadline(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const lines = text.split('\n').map((line) => line.trim()).filter(Boolean);
  const named = lines.find((line) => /^([A-Z]\w*)?Error\b|^\w+Error:|^Error \[/.test(line));
  return (named ?? lines[0])?.slice(0, 1000);
}
