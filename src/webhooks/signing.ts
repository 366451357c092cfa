// Standard Webhooks signing (https://www.standardwebhooks.com): `whsec_` + base64 of 32 random
// bytes; every delivery carries webhook-id, webhook-timestamp and webhook-signature, the last with
// one `v1,<base64 HMAC-SHA256>` per secret that is valid now (during a rotation's grace period the
// old secret signs too, so receivers still holding it keep verifying).
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signDelivery(secrets: readonly string[], eventId: string, at: Date, payload: string): SignedHeaders {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, payload)).join(' '),
  };
}
