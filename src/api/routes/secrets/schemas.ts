// Schemas shared by the secrets routes; they validate requests and document the OpenAPI operations.
import { SECRET_KEY_RULE } from '../../../secrets/secret-key.js';
import { BOUND_INFO } from '../../../secrets/hpke.js';

export const uuidParams = (...names: string[]) => ({
  type: 'object',
  required: names,
  properties: Object.fromEntries(names.map((name) => [name, { type: 'string', format: 'uuid' }])),
});

export const secretSchema = {
  type: 'object',
  required: ['id', 'secretKey'],
  properties: {
    id: { type: 'string', description: 'Unique identifier of the secret' },
    secretKey: { type: 'string', description: `The name under which the value is stored: ${SECRET_KEY_RULE}. The value itself is never returned` },
  },
} as const;

export const secretsPageSchema = {
  type: 'object',
  required: ['data', 'limit', 'nextCursor'],
  properties: {
    data: { type: 'array', items: secretSchema, description: 'The page of matching secrets' },
    limit: { type: 'integer', description: 'The maximum number of results returned in this page' },
    nextCursor: { type: ['string', 'null'], description: 'Cursor for the next page; null when there are no more results' },
  },
} as const;

export const errorSchema = {
  type: 'object',
  required: ['statusCode', 'error', 'message'],
  properties: { statusCode: { type: 'integer' }, error: { type: 'string' }, message: { type: 'string' } },
} as const;

export const error = (description: string) => ({ description, schema: errorSchema });

/** Request body properties of the sealed forms, for the route schemas. */
export const sealedInputProperties = {
  keypairId: { type: 'string', description: 'The `id` from GET /v1/secrets/keypair; optional, checked when given' },
  sealedSecretValue: { type: 'string', description: 'base64(enc || ciphertext), HPKE with empty info and aad' },
  encapsulatedKey: { type: 'string', description: 'base64 HPKE enc (32 bytes); goes with sealedValue' },
  sealedValue: { type: 'string', description: `base64 ciphertext, HPKE info "${BOUND_INFO}", aad "<projectId>/<secretKey>"` },
} as const;
