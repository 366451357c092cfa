// Lease-based leader election (coordination.k8s.io/v1 Lease), as client-go's leaderelection does:
// acquire when the lease is free or expired, renew every retry period, and give up leading only when
// no renewal has succeeded for the renew deadline (an API server restart is not a lost lease), and
// always before the lease could expire for the other replicas.
import { Kinds, type KubeObject } from '../../cluster/objects.js';
import { isAlreadyExists, isConflict, type ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}
type Lease = KubeObject & { spec: LeaseSpec };

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  /** How long the lease holds without renewal before another replica may take it (default 15). */
  leaseDurationSeconds?: number;
  /** How long the leader keeps retrying failed renewals before it stops leading (default 10); below the lease duration. */
  renewDeadlineSeconds?: number;
  /** Between attempts to acquire or renew (default 2). */
  retryPeriodSeconds?: number;
}

type Attempt = 'leading' | 'held-by-another' | 'failed';

/** MicroTime as the Kubernetes API writes it. */
const microTime = (date = new Date()): string => date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export class LeaderElector {
  private stopped = false;
  private timer?: NodeJS.Timeout;
  private leading = false;

  constructor(
    private readonly cluster: ClusterPort,
    private readonly options: LeaderElectionOptions,
    private readonly log: Logger,
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  /** Resolves once this process leads; calls onLost if it ever stops leading. */
  async run(onLost: () => void): Promise<void> {
    const retryMs = (this.options.retryPeriodSeconds ?? 2) * 1000;
    const deadlineMs = (this.options.renewDeadlineSeconds ?? 10) * 1000;
    // When the last successful attempt began: the renewTime the lease holds is no earlier.
    let renewedAt = Date.now();
    while ((await this.tryAcquireOrRenew()) !== 'leading') {
      if (this.stopped) return;
      await new Promise((resolve) => {
        this.timer = setTimeout(resolve, retryMs);
      });
      if (this.stopped) return;
      renewedAt = Date.now();
    }
    if (this.stopped) return;
    this.leading = true;
    this.log.info({ identity: this.options.identity }, 'acquired leadership');
    const renew = async () => {
      if (this.stopped) return;
      const attemptAt = Date.now();
      const remainingMs = renewedAt + deadlineMs - attemptAt;
      // An attempt still unanswered at the deadline counts as failed: the lease may expire for the others.
      const attempt = remainingMs > 0 ? await answeredWithin(this.tryAcquireOrRenew(), remainingMs) : 'failed';
      if (this.stopped) return;
      if (attempt === 'leading') renewedAt = attemptAt;
      if (attempt !== 'held-by-another' && Date.now() - renewedAt < deadlineMs) {
        this.timer = setTimeout(renew, retryMs);
        return;
      }
      this.leading = false;
      this.log.error({ identity: this.options.identity, attempt }, 'lost leadership');
      onLost();
    };
    this.timer = setTimeout(renew, retryMs);
  }

  /** Stops renewing and releases the lease so a successor need not wait for it to expire. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.leading) return;
    this.leading = false;
    const leases = this.cluster.resource<Lease>(Kinds.Lease);
    const lease = await leases.get(this.options.namespace, this.options.name).catch(() => undefined);
    if (lease?.spec.holderIdentity === this.options.identity) {
      await leases.update({ ...lease, spec: { ...lease.spec, holderIdentity: undefined, leaseDurationSeconds: 1 } }).catch(() => undefined);
    }
  }

  private async tryAcquireOrRenew(): Promise<Attempt> {
    const leases = this.cluster.resource<Lease>(Kinds.Lease);
    const { namespace, name, identity } = this.options;
    const duration = this.options.leaseDurationSeconds ?? 15;
    const now = new Date();
    try {
      const lease = await leases.get(namespace, name);
      if (!lease) {
        await leases.create({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec: { holderIdentity: identity, leaseDurationSeconds: duration, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
        });
        return 'leading';
      }
      const spec = lease.spec ?? {};
      const renewedAt = spec.renewTime ? Date.parse(spec.renewTime) : 0;
      const expired = renewedAt + (spec.leaseDurationSeconds ?? duration) * 1000 < now.getTime();
      const mine = spec.holderIdentity === identity;
      if (!mine && spec.holderIdentity && !expired) return 'held-by-another';
      await leases.update({
        ...lease,
        spec: {
          holderIdentity: identity,
          leaseDurationSeconds: duration,
          acquireTime: mine ? spec.acquireTime : microTime(now),
          renewTime: microTime(now),
          leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
        },
      });
      return 'leading';
    } catch (err) {
      // Another replica wrote first; the next attempt reads who holds the lease now.
      if (isConflict(err) || isAlreadyExists(err)) return 'failed';
      this.log.warn({ err: (err as Error).message }, 'leader election: lease update failed');
      return 'failed';
    }
  }
}

/** The attempt's answer, or 'failed' when it has none within ms. */
async function answeredWithin(attempt: Promise<Attempt>, ms: number): Promise<Attempt> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Attempt>((resolve) => {
    timer = setTimeout(() => resolve('failed'), ms);
  });
  try {
    return await Promise.race([attempt, late]);
  } finally {
    clearTimeout(timer);
  }
}
