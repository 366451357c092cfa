// The manager owns the shared informers and the controllers, and starts the controllers only
// while this process holds the leader lease.
import type { KubeObject, ResourceType } from '../../cluster/objects.js';
import type { ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import { Informer } from './informer.js';
import type { Controller } from './controller.js';
import { LeaderElector, type LeaderElectionOptions } from './leader-election.js';

export class Manager {
  private readonly informers = new Map<string, Informer>();
  private readonly controllers: Controller[] = [];
  private elector?: LeaderElector;
  private started = false;
  private ready = false;

  constructor(
    readonly cluster: ClusterPort,
    private readonly log: Logger,
    private readonly leaderElection?: LeaderElectionOptions,
    /** Watch only these namespaces (the projects), so the operator needs no cluster-wide rights; unset: all. */
    private readonly namespaces?: readonly string[],
  ) {}

  /** One informer per kind, shared by every controller that needs it. */
  informerFor<T extends KubeObject>(type: ResourceType): Informer<T> {
    const key = `${type.group}/${type.kind}`;
    let informer = this.informers.get(key);
    if (!informer) {
      informer = new Informer(this.cluster, type, this.log, { namespaces: this.namespaces });
      this.informers.set(key, informer);
    }
    return informer as unknown as Informer<T>;
  }

  add(controller: Controller): void {
    this.controllers.push(controller);
  }

  get isReady(): boolean {
    return this.ready;
  }

  get isLeader(): boolean {
    return this.elector ? this.elector.isLeader : this.ready;
  }

  /** Resolves when the controllers run (after leadership is acquired and caches have synced). */
  async start(onLeadershipLost: () => void = () => process.exit(1)): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.leaderElection) {
      this.elector = new LeaderElector(this.cluster, this.leaderElection, this.log);
      await this.elector.run(onLeadershipLost);
    }
    for (const informer of this.informers.values()) informer.start();
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync()));
    for (const controller of this.controllers) controller.start();
    this.ready = true;
  }

  async stop(): Promise<void> {
    this.ready = false;
    await Promise.all(this.controllers.map((c) => c.stop()));
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    await this.elector?.stop();
  }
}
