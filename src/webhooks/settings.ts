// Settings of webhooks, read once from BROWSERFN_WEBHOOK_* environment variables (docs/webhooks.md).
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
}

export function loadWebhookSettings(env: NodeJS.ProcessEnv = process.env): WebhookSettings {
  const retryBaseMs = int(env, 'BROWSERFN_WEBHOOK_RETRY_BASE_MS', 30_000, 1, 3_600_000);
  return {
    allowPrivate: bool(env, 'BROWSERFN_WEBHOOK_ALLOW_PRIVATE'),
    timeoutMs: int(env, 'BROWSERFN_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    maxAttempts: int(env, 'BROWSERFN_WEBHOOK_MAX_ATTEMPTS', 10, 1, 50),
    retryBaseMs,
    maxRetryDelayMs: Math.max(retryBaseMs, int(env, 'BROWSERFN_WEBHOOK_MAX_RETRY_DELAY_MS', 4 * 3_600_000, 1, 86_400_000)),
    retentionMs: int(env, 'BROWSERFN_WEBHOOK_DELIVERY_RETENTION_SECONDS', 86_400, 0, 30 * 86_400) * 1000,
  };
}

/** The wait after the given number of failed attempts (1 → retryBaseMs, 2 → twice that, …). */
export const retryDelayMs = (settings: WebhookSettings, failedAttempts: number): number =>
  Math.min(settings.maxRetryDelayMs, settings.retryBaseMs * 2 ** Math.max(0, failedAttempts - 1));

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

function bool(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false' || raw === 'no') return false;
  if (raw === '1' || raw === 'true' || raw === 'yes') return true;
  throw new Error(`${name} must be 1 or 0, got "${env[name]}"`);
}
