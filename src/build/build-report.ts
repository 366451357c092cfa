// What a build pod reports (POST …/report) when its build ends.
import type { LogEntry } from '../runtime/sandbox/log-collector.js';
import type { BuildCauseCode } from './build-failure.js';

export interface BuiltFunctionReport {
  name: string;
  sessionConfig?: Record<string, unknown>;
  parametersSchema?: Record<string, unknown>;
}

export interface BuildReport {
  kind: 'build';
  phase: 'COMPLETED' | 'FAILED';
  cause?: { code: BuildCauseCode; message: string };
  /** COMPLETED only, sorted by name. */
  functions?: BuiltFunctionReport[];
  /** COMPLETED only: the gzip-compressed ESM bundle (bundle.mjs.gz), base64. */
  bundleGzipBase64?: string;
  logs: LogEntry[];
}
