// Sends webhook deliveries (ConfigMaps labelled role=webhook-delivery): one signed attempt per
// reconcile of a due delivery, retried with backoff by requeueing at the next attempt's time, and
// pruning finished ones after their retention (src/webhooks/deliver.ts). The pending state lives in
// the store, so a restart resumes where it stopped.
import type { Logger } from '../../config/logger.js';
import { deliveryStep, type DeliveryStepDeps } from '../../webhooks/deliver.js';
import type { Reconciler, Request, Result } from '../runtime/controller.js';

export interface WebhookDeliveryDeps extends DeliveryStepDeps {
  log: Logger;
  onAttempt?: (result: 'delivered' | 'retrying' | 'failed') => void;
}

export class WebhookDeliveryReconciler implements Reconciler {
  constructor(private readonly deps: WebhookDeliveryDeps) {}

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    if (!namespace) return;
    const step = await deliveryStep(this.deps, namespace, name);
    if (step.did === 'delivered' || step.did === 'retrying' || step.did === 'failed') {
      this.deps.onAttempt?.(step.did);
      // The endpoint may carry tokens in its query: the log names the delivery, not the URL.
      const level = step.did === 'delivered' ? 'debug' : 'info';
      this.deps.log[level]({ namespace, delivery: name, result: step.did, statusCode: step.attempt?.statusCode, error: step.attempt?.error }, 'webhook delivery attempt');
    }
    return step.againAfterMs === undefined ? undefined : { requeueAfterMs: step.againAfterMs };
  }
}
