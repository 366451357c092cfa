import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKeyBinding } from '../config/settings.js';
import { HttpError } from './http-error.js';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Maps an API key to its project. Compares digests in constant time so timing leaks nothing. */
export class ApiKeyAuthenticator {
  private readonly bindings: { digest: Buffer; project: string }[];

  constructor(keys: ApiKeyBinding[]) {
    this.bindings = keys.map((k) => ({ digest: digest(k.key), project: k.project }));
  }

  /** Header names are case-insensitive (Node lower-cases them); x-bb-api-key is accepted as an alias. */
  projectFor(headers: Record<string, string | string[] | undefined>): string {
    const raw = headers['x-svc-api-key'] ?? headers['x-bb-api-key'];
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (!key) throw new HttpError(401, 'Missing API key: send it in the X-SVC-API-Key header');
    const given = digest(key);
    let project: string | undefined;
    for (const binding of this.bindings) {
      if (timingSafeEqual(binding.digest, given)) project = binding.project;
    }
    if (!project) throw new HttpError(401, 'Invalid API key: check the X-SVC-API-Key header');
    return project;
  }
}

/**
 * /metrics answers only to the scraper's bearer token: metric values count every project's work, so
 * no tenant's API key opens them.
 */
export function requireMetricsToken(headers: Record<string, string | string[] | undefined>, token: string): void {
  const header = headers.authorization;
  const given = /^Bearer\s+(\S+)\s*$/i.exec(typeof header === 'string' ? header : '')?.[1];
  if (!given) throw new HttpError(401, 'Missing metrics token: send "Authorization: Bearer <token>" (BROWSERFN_METRICS_TOKEN, or the metrics.token file in the data dir)', {}, { 'www-authenticate': 'Bearer realm="metrics"' });
  if (!timingSafeEqual(digest(given), digest(token))) throw new HttpError(401, 'Invalid metrics token: check the Authorization header', {}, { 'www-authenticate': 'Bearer realm="metrics", error="invalid_token"' });
}
