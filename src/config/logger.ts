import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level = process.env.BROWSERFN_LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { svc: 'browserfn' }, redact: ['apiKey', 'headers["x-svc-api-key"]', 'headers["x-bb-api-key"]'] });
}
