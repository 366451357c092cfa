// Sends webhook deliveries (ConfigMaps labelled role=webhook-delivery): one signed attempt per
// reconcile of a due delivery, retried with backoff by requeueing at the next attempt's time, and
// pruning finished ones after their retention (src/webhooks/deliver.ts). The pending state lives in
// the store, so a restart resumes where it stopped. One project's deliveries take at most
// `stepsPerProject` of the controller's workers at once (an attempt on a receiver that never answers
// holds one until the send times out): the others wait, parked, until one of that project's steps
// ends, so another project's deliveries always find a worker.
import type { Logger } from '../../config/logger.js';
import { deliveryStep, type DeliveryStepDeps } from '../../webhooks/deliver.js';
import type { Reconciler, Request, Result } from '../runtime/controller.js';

export interface WebhookDeliveryDeps extends DeliveryStepDeps {
  log: Logger;
  onAttempt?: (result: 'delivered' | 'retrying' | 'failed') => void;
  /** Delivery steps one project may have under way at once. */
  stepsPerProject: number;
  /** Puts a parked delivery back in the controller's queue. */
  requeue: (request: Request) => void;
}

export class WebhookDeliveryReconciler implements Reconciler {
  private readonly underWay = new Map<string, number>();
  /** Per project, the deliveries that found its steps all under way, in arrival order. */
  private readonly parked = new Map<string, Set<string>>();

  constructor(private readonly deps: WebhookDeliveryDeps) {}

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    if (!namespace) return;
    const underWay = this.underWay.get(namespace) ?? 0;
    if (underWay >= this.deps.stepsPerProject) {
      const parked = this.parked.get(namespace) ?? new Set<string>();
      this.parked.set(namespace, parked.add(name));
      return;
    }
    this.underWay.set(namespace, underWay + 1);
    try {
      const step = await deliveryStep(this.deps, namespace, name);
      if (step.did === 'delivered' || step.did === 'retrying' || step.did === 'failed') {
        this.deps.onAttempt?.(step.did);
        // The endpoint may carry tokens in its query: the log names the delivery, not the URL.
        const level = step.did === 'delivered' ? 'debug' : 'info';
        this.deps.log[level]({ namespace, delivery: name, result: step.did, statusCode: step.attempt?.statusCode, error: step.attempt?.error }, 'webhook delivery attempt');
      }
      return step.againAfterMs === undefined ? undefined : { requeueAfterMs: step.againAfterMs };
    } finally {
      this.#stepEnded(namespace);
    }
  }

  #stepEnded(namespace: string): void {
    const left = (this.underWay.get(namespace) ?? 1) - 1;
    if (left > 0) this.underWay.set(namespace, left);
    else this.underWay.delete(namespace);
    const parked = this.parked.get(namespace);
    const next = parked?.values().next().value;
    if (next === undefined) return;
    parked!.delete(next);
    if (parked!.size === 0) this.parked.delete(namespace);
    this.deps.requeue({ namespace, name: next });
  }
}
