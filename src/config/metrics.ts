import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The service's Prometheus metrics, one registry per process (tests start several apps). */
export class Metrics {
  readonly registry = new Registry();
  readonly invocations = new Counter({
    name: 'browserfn_invocations_total',
    help: 'Invocations that reached a terminal status, by status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly invocationDuration = new Histogram({
    name: 'browserfn_invocation_duration_seconds',
    help: 'From invoke to a terminal status',
    buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900],
    registers: [this.registry],
  });
  readonly invocationPhases = new Histogram({
    name: 'browserfn_invocation_phase_seconds',
    help: 'Where an invocation spends its time: queued (invoke to admission), start (admission to the handler having its event), handler (until it returned or failed), report (until the status says so); by how its browser started',
    labelNames: ['phase', 'start'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  readonly buildDuration = new Histogram({
    name: 'browserfn_build_duration_seconds',
    help: 'From upload to a terminal build status',
    labelNames: ['status'] as const,
    buckets: [1, 2, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'browserfn_workqueue_depth',
    help: 'Items waiting in a controller work queue',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });
  readonly retention = new Counter({
    name: 'browserfn_retention_actions_total',
    help: 'Retention steps taken: invocations and builds archived (and removed from the cluster store), archived objects swept, old bundles pruned',
    labelNames: ['action'] as const,
    registers: [this.registry],
  });
  readonly artifactCache = new Counter({
    name: 'browserfn_node_artifact_cache_total',
    help: "Browser pods' artifacts the node agent found in its cache (hit) or downloaded into it (miss)",
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly invocationStarts = new Counter({
    name: 'browserfn_invocation_starts_total',
    help: 'Browser pods given to invocations: a claimed warm pool member (warm) or a pod made for it (cold)',
    labelNames: ['start'] as const,
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter({
    name: 'browserfn_webhook_attempts_total',
    help: 'Webhook delivery attempts by what they led to: delivered, retrying (a retry is scheduled) or failed (attempts used up)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly fetches = new Counter({
    name: 'browserfn_fetch_requests_total',
    help: 'Fetch requests by format and outcome status code',
    labelNames: ['format', 'status'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'browserfn_process_' });
  }
}
