// Settings of webhooks, read once from BROWSERFN_WEBHOOK_* environment variables (docs/webhooks.md).
import { boolValue, intValue } from '../config/env-values.js';
export interface WebhookSettings {
  /** Lifts the SSRF guard for endpoints (self-hosted receivers on private networks) and allows http://. */
  allowPrivate: boolean;
  /** One delivery attempt: connect, send, and the receiver's answer. */
  timeoutMs: number;
  /** Attempts of one delivery before it is given up as failed. */
  maxAttempts: number;
  /** Wait before the first retry; each further retry waits twice as long as the one before, up to maxRetryDelayMs. */
  retryBaseMs: number;
  maxRetryDelayMs: number;
  /** A finished delivery (and its attempts) is kept this long once the event's resource has left the store. */
  retentionMs: number;
  /** Webhooks one project may register: each event is stored and sent once per subscribed webhook. */
  maxPerProject: number;
}

export const DEFAULT_WEBHOOKS_PER_PROJECT = 20;

export function loadWebhookSettings(env: NodeJS.ProcessEnv = process.env): WebhookSettings {
  const retryBaseMs = intValue(env['BROWSERFN_WEBHOOK_RETRY_BASE_MS'], 'BROWSERFN_WEBHOOK_RETRY_BASE_MS', 30_000, 1, 3_600_000);
  return {
    allowPrivate: boolValue(env['BROWSERFN_WEBHOOK_ALLOW_PRIVATE'], 'BROWSERFN_WEBHOOK_ALLOW_PRIVATE'),
    timeoutMs: intValue(env['BROWSERFN_WEBHOOK_TIMEOUT_MS'], 'BROWSERFN_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    maxAttempts: intValue(env['BROWSERFN_WEBHOOK_MAX_ATTEMPTS'], 'BROWSERFN_WEBHOOK_MAX_ATTEMPTS', 10, 1, 50),
    retryBaseMs,
    maxRetryDelayMs: Math.max(retryBaseMs, intValue(env['BROWSERFN_WEBHOOK_MAX_RETRY_DELAY_MS'], 'BROWSERFN_WEBHOOK_MAX_RETRY_DELAY_MS', 4 * 3_600_000, 1, 86_400_000)),
    retentionMs: intValue(env['BROWSERFN_WEBHOOK_DELIVERY_RETENTION_SECONDS'], 'BROWSERFN_WEBHOOK_DELIVERY_RETENTION_SECONDS', 86_400, 0, 30 * 86_400) * 1000,
    maxPerProject: intValue(env['BROWSERFN_WEBHOOK_MAX_PER_PROJECT'], 'BROWSERFN_WEBHOOK_MAX_PER_PROJECT', DEFAULT_WEBHOOKS_PER_PROJECT, 1, 1000),
  };
}

/** The wait after the given number of failed attempts (1 → retryBaseMs, 2 → twice that, …). */
export const retryDelayMs = (settings: WebhookSettings, failedAttempts: number): number =>
  Math.min(settings.maxRetryDelayMs, settings.retryBaseMs * 2 ** Math.max(0, failedAttempts - 1));


