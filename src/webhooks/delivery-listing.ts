// A webhook's deliveries, newest first, paged like the webhooks themselves.
import { Kinds } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import { deliveriesOf, readDelivery, type Delivery } from './deliveries.js';
import { pageNewestFirst, type Page, type PageQuery } from './paging.js';
import { getWebhook } from './store.js';

export async function listDeliveries(cluster: ClusterPort, project: string, webhookId: string, query: PageQuery, rawLimit: unknown): Promise<Page<Delivery & { id: string }>> {
  const { record } = await getWebhook(cluster, project, webhookId);
  const { items } = await cluster.resource(Kinds.ConfigMap).list(project, { labelSelector: deliveriesOf(record.id) });
  const deliveries = items.map(readDelivery).filter((d): d is Delivery => d !== undefined).map((d) => ({ ...d, id: d.name }));
  return pageNewestFirst(cluster, project, `webhooks/${record.id}/deliveries`, deliveries, query, rawLimit);
}
