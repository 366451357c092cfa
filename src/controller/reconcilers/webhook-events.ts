// Turns what Invocations and Builds reached into webhook deliveries (docs/webhooks.md). Keys are
// `<namespace>/Invocation/<name>` and `<namespace>/Build/<name>`. Level-triggered: every reconcile
// derives the object's events from its status and records those not recorded yet, so after a
// restart nothing is lost and nothing recorded is sent again (src/webhooks/emit.ts).
import type { ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import type { BuildObject, InvocationObject } from '../../schemas/resources.js';
import { buildEvents, invocationEvents } from '../../webhooks/events.js';
import { recordEvents } from '../../webhooks/emit.js';
import type { StoredWebhook } from '../../webhooks/store.js';
import type { Informer } from '../runtime/informer.js';
import type { Reconciler, Request } from '../runtime/controller.js';
import type { Clock } from '../runtime/clock.js';

export type EventSourceKind = 'Invocation' | 'Build';

export const eventSourceRequest = (kind: EventSourceKind, obj: InvocationObject | BuildObject): Request => ({
  namespace: obj.metadata.namespace,
  name: `${kind}/${obj.metadata.name}`,
});

export interface WebhookEventsDeps {
  cluster: ClusterPort;
  invocations: Informer<InvocationObject>;
  builds: Informer<BuildObject>;
  /** The namespace's webhooks, from the informers' cache (a new webhook re-enqueues its namespace's objects). */
  webhooks: (namespace: string) => StoredWebhook[];
  clock: Clock;
  log: Logger;
  onRecorded?: (deliveries: number) => void;
}

export class WebhookEventsReconciler implements Reconciler {
  constructor(private readonly deps: WebhookEventsDeps) {}

  async reconcile({ namespace, name }: Request): Promise<void> {
    const slash = name.indexOf('/');
    const kind = name.slice(0, slash);
    const objectName = name.slice(slash + 1);
    if (!namespace || (kind !== 'Invocation' && kind !== 'Build')) return;
    const obj = kind === 'Invocation' ? this.deps.invocations.get(namespace, objectName) : this.deps.builds.get(namespace, objectName);
    if (!obj || obj.metadata.deletionTimestamp) return;
    const webhooks = this.deps.webhooks(namespace);
    if (webhooks.length === 0) return;
    const events = kind === 'Invocation' ? invocationEvents(obj as InvocationObject) : buildEvents(obj as BuildObject);
    const recorded = await recordEvents(this.deps.cluster, events, { kind, name: objectName }, webhooks, this.deps.clock());
    if (recorded > 0) {
      this.deps.onRecorded?.(recorded);
      this.deps.log.debug({ namespace, kind, name: objectName, deliveries: recorded }, 'recorded webhook deliveries');
    }
  }
}
