import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** The service's logger: JSON lines on stdout, or on `destination` (tests capture the log this way). */
export function createLogger(level = process.env.BROWSERFN_LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const options = { level, base: { svc: 'browserfn' }, redact: ['apiKey', 'headers["x-svc-api-key"]', 'headers["x-bb-api-key"]'] };
  return destination ? pino(options, destination) : pino(options);
}
