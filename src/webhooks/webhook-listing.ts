// The project's webhooks, newest first (src/webhooks/paging.ts).
import type { ClusterPort } from '../cluster/port.js';
import type { WebhookRecord } from './objects.js';
import { pageNewestFirst, type Page, type PageQuery } from './paging.js';
import { listWebhooks } from './store.js';

export async function listWebhooksPage(cluster: ClusterPort, project: string, query: PageQuery, rawLimit: unknown): Promise<Page<WebhookRecord>> {
  const records = (await listWebhooks(cluster, project)).map((w) => w.record);
  return pageNewestFirst(cluster, project, 'webhooks', records, query, rawLimit);
}
