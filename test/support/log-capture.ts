// The service's own pino log kept in memory, so tests can search every line it wrote.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/config/logger.js';

export interface CapturedLog {
  log: Logger;
  /** Every log line written so far (JSON text). */
  lines: string[];
}

/** The production logger (same redaction) at `level`, writing into `lines` instead of stdout. */
export function captureLog(level = 'debug'): CapturedLog {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { log: createLogger(level, sink), lines };
}
