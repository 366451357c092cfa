import type { FunctionErrorReport } from './types.js';

/** Turns anything a handler threw into the runtime API's error body, one stackTrace element per stack line. */
export function toErrorReport(thrown: unknown): FunctionErrorReport {
  if (thrown instanceof Error) {
    return {
      errorMessage: thrown.message || thrown.name || 'Error',
      errorType: thrown.name || 'Error',
      stackTrace: (thrown.stack ?? '').split('\n').filter((line) => line.length > 0),
    };
  }
  if (typeof thrown === 'object' && thrown !== null) {
    const record = thrown as Record<string, unknown>;
    const stack = typeof record.stack === 'string' ? record.stack.split('\n').filter((line) => line.length > 0) : [];
    return {
      errorMessage: typeof record.message === 'string' && record.message ? record.message : safeJson(thrown),
      errorType: typeof record.name === 'string' && record.name ? record.name : 'UnknownError',
      stackTrace: stack,
    };
  }
  return { errorMessage: String(thrown), errorType: 'UnknownError', stackTrace: [] };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
