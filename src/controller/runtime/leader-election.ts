// Lease-based leader election (coordination.k8s.io/v1 Lease), as client-go's leaderelection does:
// acquire when the lease is free or expired, renew well inside its duration, give up on loss.
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
  leaseDurationSeconds?: number;
  renewEverySeconds?: number;
  retryEverySeconds?: number;
}

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
    const retryMs = (this.options.retryEverySeconds ?? 2) * 1000;
    while (!this.stopped && !(await this.tryAcquireOrRenew())) {
      await new Promise((resolve) => {
        this.timer = setTimeout(resolve, retryMs);
      });
    }
    if (this.stopped) return;
    this.leading = true;
    this.log.info({ identity: this.options.identity }, 'acquired leadership');
    const renewMs = (this.options.renewEverySeconds ?? 5) * 1000;
    const renew = async () => {
      if (this.stopped) return;
      if (await this.tryAcquireOrRenew()) {
        this.timer = setTimeout(renew, renewMs);
        return;
      }
      this.leading = false;
      this.log.error({ identity: this.options.identity }, 'lost leadership');
      onLost();
    };
    this.timer = setTimeout(renew, renewMs);
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

  private async tryAcquireOrRenew(): Promise<boolean> {
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
        return true;
      }
      const spec = lease.spec ?? {};
      const renewedAt = spec.renewTime ? Date.parse(spec.renewTime) : 0;
      const expired = renewedAt + (spec.leaseDurationSeconds ?? duration) * 1000 < now.getTime();
      const mine = spec.holderIdentity === identity;
      if (!mine && spec.holderIdentity && !expired) return false;
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
      return true;
    } catch (err) {
      if (isConflict(err) || isAlreadyExists(err)) return false;
      this.log.warn({ err: (err as Error).message }, 'leader election: lease update failed');
      return false;
    }
  }
}
