// What the webhook routes need beyond ApiDeps: the webhook settings read at start.
import type { WebhookSettings } from '../../../webhooks/settings.js';

export interface WebhookRoutesDeps {
  settings: WebhookSettings;
}
