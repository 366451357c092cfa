// The webhook routes. Create and update judge endpoints by the server's webhook settings.
import type { RouteDefinition } from '../../route.js';
import type { WebhookRoutesDeps } from './deps.js';
import createWebhook from './create-webhook.js';
import listWebhooks from './list-webhooks.js';
import getWebhook from './get-webhook.js';
import updateWebhook from './update-webhook.js';
import deleteWebhook from './delete-webhook.js';
import rotateSecret from './rotate-secret.js';
import listDeliveries from './list-deliveries.js';

export const webhookRoutes = (deps: WebhookRoutesDeps): RouteDefinition[] => [
  createWebhook(deps),
  listWebhooks,
  getWebhook,
  ...updateWebhook(deps),
  deleteWebhook,
  rotateSecret,
  listDeliveries,
];
