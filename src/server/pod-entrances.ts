// Each sandboxed pod reaches the control plane through an entrance of its own: a host loopback port
// that pasta forwards the pod's control-plane port to, whose connections the façade's HTTP server
// then serves as its own. On the host every pod's connections come from 127.0.0.1, so without it
// one pod could take the whole per-client allowance of that address and shut every other pod (and
// local client) out; through its entrance a pod holds at most POD_ENTRANCE_MAX_CONNECTIONS.
import type { Server } from 'node:http';
import { createServer, type Server as NetServer } from 'node:net';
import type { PodEntrance, PodEntrances } from '../runtime/node-agent/pod-entrance.js';

/** A pod agent needs a few (input, report, live view, records); its handler may call the API too. */
export const POD_ENTRANCE_MAX_CONNECTIONS = 64;

export class PodEntranceListeners implements PodEntrances {
  private readonly open = new Set<NetServer>();
  private closed = false;

  /** `port`: the façade's own port, the one pods are told (BROWSERFN_CONTROL_URL). */
  constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  async openFor(): Promise<PodEntrance> {
    if (this.closed) throw new Error('the façade has stopped');
    const entrance = createServer((socket) => this.server.emit('connection', socket));
    entrance.maxConnections = POD_ENTRANCE_MAX_CONNECTIONS;
    await new Promise<void>((resolve, reject) => {
      entrance.once('error', reject);
      entrance.listen(0, '127.0.0.1', () => resolve());
    });
    this.open.add(entrance);
    const { port } = entrance.address() as { port: number };
    return {
      port,
      close: () => {
        this.open.delete(entrance);
        entrance.close();
      },
    };
  }

  /** With the façade: pods stopped after it cannot report through their entrances either. */
  closeAll(): void {
    this.closed = true;
    for (const entrance of this.open) entrance.close();
    this.open.clear();
  }
}
