// The node agent registers itself as a Node and keeps its Ready condition fresh, as a kubelet
// does, so `kubectl get nodes` shows where browser pods run and when that node stopped.
import { availableParallelism, totalmem } from 'node:os';
import { Kinds, newObject, type KubeObject } from '../../cluster/objects.js';
import { isAlreadyExists, isNotFound, type ClusterPort } from '../../cluster/port.js';
import { retryOnConflict } from '../../cluster/retry.js';
import type { Logger } from '../../config/logger.js';

const HEARTBEAT_MS = 20_000;
const NODE_RESOURCES = { cpu: String(availableParallelism()), memory: `${Math.floor(totalmem() / 1024 / 1024)}Mi`, pods: '110' };

export class NodeRegistration {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly cluster: ClusterPort,
    private readonly nodeName: string,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const nodes = this.cluster.resource(Kinds.Node);
    try {
      await nodes.create(newObject(Kinds.Node, { name: this.nodeName, labels: { 'kubernetes.io/hostname': this.nodeName, 'browserfn.dev/node-agent': 'true' } }, { spec: {} }));
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    await this.report(true);
    this.timer = setInterval(() => void this.report(true), HEARTBEAT_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.report(false);
  }

  private async report(ready: boolean): Promise<void> {
    const nodes = this.cluster.resource(Kinds.Node);
    try {
      await retryOnConflict(
        async () => {
          const node = await nodes.get(undefined, this.nodeName);
          if (!node) return;
          const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
          const previous = ((node.status as { conditions?: { type: string; status: string; lastTransitionTime?: string }[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready');
          const status = ready ? 'True' : 'False';
          const updated: KubeObject = {
            ...node,
            status: {
              ...(node.status as object),
              conditions: [
                {
                  type: 'Ready',
                  status,
                  reason: ready ? 'NodeAgentReady' : 'NodeAgentStopped',
                  message: ready ? 'browserfn node agent is running pods' : 'browserfn node agent stopped',
                  lastHeartbeatTime: now,
                  lastTransitionTime: previous?.status === status ? previous.lastTransitionTime : now,
                },
              ],
              nodeInfo: { kubeletVersion: 'browserfn-node-agent', operatingSystem: process.platform, architecture: process.arch },
              // What a scheduler fits pods into, as a kubelet reports it: the machine's CPUs and memory.
              capacity: NODE_RESOURCES,
              allocatable: NODE_RESOURCES,
            },
          };
          await nodes.updateStatus(updated);
        },
        { retries: 2 },
      );
    } catch (err) {
      if (!isNotFound(err)) this.log.warn({ err: (err as Error).message }, 'node heartbeat failed');
    }
  }
}
