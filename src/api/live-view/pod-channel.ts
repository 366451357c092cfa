// The façade's end of one pod's live-view channel (see src/schemas/live-channel.ts): asks the pod
// for Chromium's files and page list, and relays viewer WebSockets to the pod's CDP endpoints,
// filtering view-only viewers' commands here, where the pod cannot change the rule.
import WebSocket, { type RawData } from 'ws';
import type { LiveReply, LiveRequest } from '../../schemas/live-channel.js';
import type { SessionMetrics } from '../../schemas/session-metrics.js';
import type { LiveChannel, PodResponse, RelayOptions } from './live-channel.js';
import { refuseForViewOnly } from './view-only.js';

const REQUEST_TIMEOUT_MS = 20_000;

interface Viewer {
  socket: WebSocket;
  viewOnly: boolean;
  expiry: NodeJS.Timeout;
}

export class PodChannel implements LiveChannel {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, (reply: LiveReply | undefined) => void>();
  readonly #viewers = new Map<number, Viewer>();
  readonly #closeListeners: (() => void)[] = [];
  #nextId = 1;
  #closed = false;

  constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data) => this.#onReply(data));
    socket.on('error', () => undefined);
    socket.on('close', () => this.#onClose());
  }

  get closed(): boolean {
    return this.#closed;
  }

  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#closeListeners.push(listener);
  }

  async http(path: string): Promise<PodResponse> {
    const reply = await this.#ask((id) => ({ op: 'http', id, path }));
    if (reply?.op !== 'http') throw new Error('the pod did not answer');
    return { status: reply.status, contentType: reply.contentType, body: Buffer.from(reply.body, 'base64') };
  }

  async metrics(): Promise<SessionMetrics> {
    const reply = await this.#ask((id) => ({ op: 'metrics', id }));
    if (reply?.op !== 'metrics') throw new Error('the pod did not answer');
    return reply.metrics;
  }

  relay(viewerSocket: WebSocket, path: string, options: RelayOptions): void {
    if (this.#closed) return viewerSocket.close(1001, 'the session has ended');
    const id = this.#nextId++;
    const expiry = setTimeout(() => this.#endViewer(id, 1008, 'the live-view token has expired'), Math.max(0, options.expiresAtMs - Date.now()));
    this.#viewers.set(id, { socket: viewerSocket, viewOnly: options.viewOnly, expiry });
    viewerSocket.on('message', (data: RawData) => {
      const message = data.toString();
      const refused = options.viewOnly ? refuseForViewOnly(message) : undefined;
      if (refused) viewerSocket.send(refused.reply);
      else this.#send({ op: 'ws-send', id, data: message });
    });
    viewerSocket.on('error', () => undefined);
    viewerSocket.on('close', () => {
      if (!this.#viewers.has(id)) return;
      this.#dropViewer(id);
      this.#send({ op: 'ws-close', id });
    });
    this.#send({ op: 'ws-open', id, path });
  }

  close(): void {
    this.#socket.terminate();
  }

  #ask(make: (id: number) => LiveRequest): Promise<LiveReply | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle(undefined), REQUEST_TIMEOUT_MS);
      const settle = (reply: LiveReply | undefined) => {
        clearTimeout(timer);
        this.#pending.delete(id);
        resolve(reply);
      };
      this.#pending.set(id, settle);
      this.#send(make(id));
    });
  }

  #send(request: LiveRequest): void {
    if (this.#socket.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(request));
  }

  #onReply(data: RawData): void {
    let reply: LiveReply;
    try {
      reply = JSON.parse(data.toString()) as LiveReply;
    } catch {
      return;
    }
    if (reply.op === 'http' || reply.op === 'metrics') return this.#pending.get(reply.id)?.(reply);
    const viewer = this.#viewers.get(reply.id);
    if (!viewer) return;
    if (reply.op === 'ws-message' && viewer.socket.readyState === WebSocket.OPEN) viewer.socket.send(reply.data);
    else if (reply.op === 'ws-closed') this.#endViewer(reply.id, 1011, reply.reason.slice(0, 120));
  }

  #endViewer(id: number, code: number, reason: string): void {
    const viewer = this.#viewers.get(id);
    if (!viewer) return;
    this.#dropViewer(id);
    this.#send({ op: 'ws-close', id });
    viewer.socket.close(code, reason);
  }

  #dropViewer(id: number): void {
    const viewer = this.#viewers.get(id);
    if (viewer) clearTimeout(viewer.expiry);
    this.#viewers.delete(id);
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const settle of this.#pending.values()) settle(undefined);
    for (const id of [...this.#viewers.keys()]) {
      const viewer = this.#viewers.get(id)!;
      this.#dropViewer(id);
      viewer.socket.close(1001, 'the session has ended');
    }
    for (const listener of this.#closeListeners.splice(0)) listener();
  }
}
