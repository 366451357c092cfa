// Schemas shared by the webhook routes; they validate requests and document the OpenAPI operations.
import { EVENT_TYPES } from '../../../webhooks/event-types.js';
import { MAX_ENDPOINT_LENGTH } from '../../../webhooks/endpoint.js';

export { error, uuidParams } from '../secrets/schemas.js';

/** Requests' event types are checked by the use case, whose 400 names the allowed ones (an enum's would not); responses document the enum. */
const eventTypes = {
  type: 'array',
  maxItems: 32,
  items: { type: 'string', maxLength: 128 },
  description: `Event types to subscribe to, one or more of: ${EVENT_TYPES.join(', ')}; unknown types are refused`,
} as const;
const documentedEventTypes = { ...eventTypes, items: { type: 'string', enum: EVENT_TYPES } };

const endpoint = {
  type: 'string',
  maxLength: MAX_ENDPOINT_LENGTH,
  description: 'HTTPS URL deliveries are POSTed to; private and internal addresses are refused unless the server sets BROWSERFN_WEBHOOK_ALLOW_PRIVATE=1 (which also allows http://)',
} as const;

export const createBody = { type: 'object', required: ['endpoint', 'eventTypes'], additionalProperties: false, properties: { endpoint, eventTypes } } as const;
export const updateBody = { type: 'object', additionalProperties: false, properties: { endpoint, eventTypes } } as const;

export const webhookSchema = {
  type: 'object',
  required: ['id', 'projectId', 'endpoint', 'eventTypes', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', description: 'Unique identifier of the webhook' },
    projectId: { type: 'string', description: 'The project the webhook belongs to' },
    endpoint: { type: 'string' },
    eventTypes: documentedEventTypes,
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
} as const;

const secret = { type: 'string', description: 'Signing secret, `whsec_` + base64; shown only here. Verify deliveries with it (Standard Webhooks)' } as const;

export const createdWebhookSchema = { ...webhookSchema, required: [...webhookSchema.required, 'secret'], properties: { ...webhookSchema.properties, secret } };
export const rotatedSecretSchema = { type: 'object', required: ['secret'], properties: { secret } } as const;

const page = (items: Record<string, unknown>, what: string) => ({
  type: 'object',
  required: ['data', 'limit', 'nextCursor'],
  properties: {
    data: { type: 'array', items, description: `The page of ${what}, newest first` },
    limit: { type: 'integer', description: 'The maximum number of results returned in this page' },
    nextCursor: { type: ['string', 'null'], description: 'Cursor for the next page; null when there are no more results' },
  },
});

export const webhooksPageSchema = page(webhookSchema, 'webhooks');

const attemptSchema = {
  type: 'object',
  required: ['at', 'durationMs'],
  properties: {
    at: { type: 'string', format: 'date-time' },
    durationMs: { type: 'integer' },
    statusCode: { type: 'integer', description: "The receiver's HTTP status, when it answered" },
    error: { type: 'string', description: 'Why the attempt failed (a status other than 2xx, a refused address, a timeout, a connection error)' },
  },
} as const;

export const deliveriesPageSchema = page(
  {
    type: 'object',
    required: ['id', 'webhookId', 'type', 'resourceId', 'status', 'createdAt', 'attempts'],
    properties: {
      id: { type: 'string', description: 'The event ID (also the webhook-id header of every attempt)' },
      webhookId: { type: 'string' },
      type: { type: 'string', enum: EVENT_TYPES },
      resourceId: { type: 'string', description: "The invocation's or build's ID" },
      status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
      createdAt: { type: 'string', format: 'date-time' },
      nextAttemptAt: { type: 'string', format: 'date-time' },
      finishedAt: { type: 'string', format: 'date-time' },
      attempts: { type: 'array', items: attemptSchema },
    },
  },
  'deliveries',
);
