// Sends one delivery attempt: a signed POST through the same SSRF guard as fetch (the guarded
// connector resolves the host once, refuses private and internal addresses unless
// BROWSERFN_WEBHOOK_ALLOW_PRIVATE=1, and connects to the address it checked), bounded by the
// timeout. Redirects are not followed. Never throws: every failure is an attempt to record.
import { Agent } from 'undici';
import { ConnectRefusedError, guardedConnector, systemResolver, type Resolver } from '../fetch/guarded-connector.js';
import { checkEndpoint, endpointPolicy } from './endpoint.js';
import type { Attempt } from './deliveries.js';
import type { WebhookSettings } from './settings.js';
import type { SignedHeaders } from './signing.js';

export class WebhookSender {
  private readonly agent: Agent;

  constructor(
    private readonly settings: WebhookSettings,
    resolve: Resolver = systemResolver,
  ) {
    this.agent = new Agent({
      connect: guardedConnector({ policy: endpointPolicy(settings.allowPrivate), resolve, rejectUnauthorized: true, connectTimeoutMs: settings.timeoutMs }),
      keepAliveTimeout: 4_000,
      connections: 16,
    });
  }

  async send(endpoint: string, headers: SignedHeaders, payload: string): Promise<Attempt> {
    const started = Date.now();
    const done = (result: { statusCode?: number; error?: string }): Attempt => ({ at: new Date(started).toISOString(), durationMs: Date.now() - started, ...result });
    let url: URL;
    try {
      // Checked again: the server's settings may have changed since the endpoint was registered.
      url = new URL(checkEndpoint(endpoint, this.settings.allowPrivate));
    } catch (err) {
      return done({ error: (err as Error).message });
    }
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.settings.timeoutMs);
    try {
      const response = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'browserfn-webhooks/1', ...headers },
        body: payload,
        signal: timeout.signal,
        headersTimeout: this.settings.timeoutMs,
        bodyTimeout: this.settings.timeoutMs,
      });
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return done({ statusCode: response.statusCode, ...(ok ? {} : { error: `The receiver answered ${response.statusCode}` }) });
    } catch (err) {
      if (timeout.signal.aborted) return done({ error: `No answer within the ${this.settings.timeoutMs} ms timeout` });
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof ConnectRefusedError || err instanceof ConnectRefusedError) {
        const refused = (cause instanceof ConnectRefusedError ? cause : err) as ConnectRefusedError;
        return done({ error: refused.reason === 'address' ? `Refused by the address guard: ${refused.message}` : refused.message });
      }
      const error = err as NodeJS.ErrnoException;
      return done({ error: `${error.message}${error.code && !error.message.includes(error.code) ? ` (${error.code})` : ''}` });
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
