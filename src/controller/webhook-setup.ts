// Wires webhooks into the manager (docs/webhooks.md): one controller records the events of
// Invocations and Builds as deliveries, another sends the deliveries.
import { Kinds, type KubeObject } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import type { Logger } from '../config/logger.js';
import type { Metrics } from '../config/metrics.js';
import { Labels, Roles, type BuildObject, type InvocationObject } from '../schemas/resources.js';
import type { WebhookSender } from '../webhooks/sender.js';
import { webhookRecord } from '../webhooks/objects.js';
import type { StoredWebhook } from '../webhooks/store.js';
import type { WebhookSettings } from '../webhooks/settings.js';
import { Controller, keyOf } from './runtime/controller.js';
import type { Manager } from './runtime/manager.js';
import type { Clock } from './runtime/clock.js';
import { WebhookEventsReconciler, eventSourceRequest } from './reconcilers/webhook-events.js';
import { WebhookDeliveryReconciler } from './reconcilers/webhook-delivery.js';

export interface WebhookControllerSettings {
  settings: WebhookSettings;
  /** Owned by the caller, which closes it after the manager stops. */
  sender: WebhookSender;
}

interface Wiring extends WebhookControllerSettings {
  cluster: ClusterPort;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  onQueueDepth: (queue: string) => (depth: number) => void;
}

const DELIVERY_WORKERS = 4;
const isDelivery = (obj: KubeObject): boolean => obj.metadata.labels?.[Labels.role] === Roles.webhookDelivery;
const isWebhook = (obj: KubeObject): boolean => obj.metadata.labels?.[Labels.role] === Roles.webhook;

export function addWebhookControllers(manager: Manager, wiring: Wiring): void {
  const { cluster, clock, log, onQueueDepth } = wiring;
  const invocations = manager.informerFor<InvocationObject>(Kinds.Invocation);
  const builds = manager.informerFor<BuildObject>(Kinds.Build);
  const configMaps = manager.informerFor(Kinds.ConfigMap);

  const webhooks = (namespace: string): StoredWebhook[] =>
    configMaps
      .list((cm) => cm.metadata.namespace === namespace && isWebhook(cm))
      .flatMap((object) => {
        const record = webhookRecord(object);
        return record ? [{ record, object }] : [];
      });
  const inNamespace = (namespace: string | undefined) => (obj: KubeObject) => obj.metadata.namespace === namespace;
  manager.add(
    new Controller({ name: 'webhook-events', workers: 1, onQueueDepth: onQueueDepth('webhook-events') }, new WebhookEventsReconciler({ cluster, invocations, builds, webhooks, clock, log }), log)
      .watches(invocations, (inv) => [eventSourceRequest('Invocation', inv)])
      .watches(builds, (build) => [eventSourceRequest('Build', build)])
      // A webhook the cache learns of late must still hear of what happened after it was registered.
      .watches(configMaps, (cm) =>
        isWebhook(cm)
          ? [
              ...invocations.list(inNamespace(cm.metadata.namespace)).map((inv) => eventSourceRequest('Invocation', inv)),
              ...builds.list(inNamespace(cm.metadata.namespace)).map((build) => eventSourceRequest('Build', build)),
            ]
          : [],
      ),
  );
  const deliveries = new WebhookDeliveryReconciler({
    cluster,
    sender: wiring.sender,
    settings: wiring.settings,
    now: clock,
    log,
    onAttempt: (result) => wiring.metrics.webhookAttempts.labels(result).inc(),
    // One project's receivers that never answer leave a worker to the other projects.
    stepsPerProject: DELIVERY_WORKERS - 1,
    requeue: (request) => sending.queue.add(keyOf(request)),
  });
  // Several workers: one slow receiver must not hold up the others' deliveries.
  const sending = new Controller({ name: 'webhook-delivery', workers: DELIVERY_WORKERS, onQueueDepth: onQueueDepth('webhook-delivery') }, deliveries, log).watches(configMaps, (cm) =>
    isDelivery(cm) ? [{ namespace: cm.metadata.namespace, name: cm.metadata.name }] : [],
  );
  manager.add(sending);
}
