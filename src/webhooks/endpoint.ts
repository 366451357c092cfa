// What an endpoint may be, judged at registration as far as it can be without DNS: an absolute
// https URL (http too when private receivers are allowed), no credentials or fragment, and no host
// the SSRF guard refuses by its literal address or name. Names that resolve to refused addresses
// are caught by the same guard at delivery (src/webhooks/sender.ts) and recorded as failed attempts.
import { isIP } from 'node:net';
import { invalid } from '../domain/errors.js';
import { AddressPolicy } from '../fetch/address-policy.js';

export const MAX_ENDPOINT_LENGTH = 2048;
const PRIVATE_HINT = 'set BROWSERFN_WEBHOOK_ALLOW_PRIVATE=1 on the server to deliver to receivers on private networks';

export const endpointPolicy = (allowPrivate: boolean): AddressPolicy => new AddressPolicy({ allowPrivate, allowCidrs: [] });

/** The endpoint as it will be called (normalised by the URL parser); `invalid` saying what to fix. */
export function checkEndpoint(endpoint: string, allowPrivate: boolean): string {
  if (endpoint.length > MAX_ENDPOINT_LENGTH) throw invalid(`endpoint is ${endpoint.length} characters; the limit is ${MAX_ENDPOINT_LENGTH}`);
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw invalid(`endpoint "${endpoint.slice(0, 128)}" is not an absolute URL such as https://hooks.example.com/browserfn`);
  }
  const shown = url.origin;
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw invalid(`endpoint ${shown} must use https://${url.protocol === 'http:' ? ` (http:// is accepted only when ${PRIVATE_HINT})` : ''}`);
  }
  if (url.username || url.password) throw invalid('endpoint must not carry a user name or password; authenticate deliveries by their signature instead');
  if (url.hash) throw invalid('endpoint must not have a #fragment (it is never sent)');
  if (allowPrivate) return url.href;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) {
    const refusal = endpointPolicy(false).refusal(host);
    if (refusal) throw invalid(`endpoint ${shown} is ${refusal}; ${PRIVATE_HINT}`);
  } else if (host === 'localhost' || host.endsWith('.localhost')) {
    throw invalid(`endpoint ${shown} names the loopback interface; ${PRIVATE_HINT}`);
  }
  return url.href;
}
