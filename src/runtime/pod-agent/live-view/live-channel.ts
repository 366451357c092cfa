// The pod agent's live-view channel: while its session runs, the agent keeps a WebSocket open to the
// façade (dialled out, pod token), over which the façade relays viewers to this pod's Chromium
// (docs/live-view.md). Dropped connections are dialled again until the session ends; closing the
// channel closes every relayed socket with it.
import WebSocket, { type RawData } from 'ws';
import type { Logger } from '../../../config/logger.js';
import { LIVE_CHANNEL_SUFFIX, type LiveReply, type LiveRequest } from '../../../schemas/live-channel.js';
import type { SessionMetrics } from '../../../schemas/session-metrics.js';
import { ChromiumRelay } from './chromium-relay.js';

/** Relayed sockets one session serves at once. */
const MAX_RELAYED_SOCKETS = 32;
const MAX_REDIAL_DELAY_MS = 5000;
/** Commands a viewer may send before its connection to Chromium is up (DevTools sends a few dozen). */
const MAX_EARLY_MESSAGES = 1000;

export interface LiveChannelOptions {
  controlUrl: string;
  namespace: string;
  podName: string;
  podToken: string;
  /** Browser-level CDP URL of the session's Chromium. */
  wsEndpoint: string;
  /** The metrics sampled so far. */
  metrics: () => SessionMetrics;
  log: Logger;
}

export class LiveChannel {
  readonly #options: LiveChannelOptions;
  readonly #relay: ChromiumRelay;
  readonly #sockets = new Map<number, WebSocket>();
  /** What viewers sent while their connection to Chromium was still being made. */
  readonly #early = new Map<number, string[]>();
  #socket: WebSocket | undefined;
  #closed = false;
  #redialDelayMs = 250;
  #redialTimer: NodeJS.Timeout | undefined;

  private constructor(options: LiveChannelOptions) {
    this.#options = options;
    this.#relay = new ChromiumRelay(options.wsEndpoint);
  }

  /** Dials in the background; the session does not wait for it. */
  static open(options: LiveChannelOptions): LiveChannel {
    const channel = new LiveChannel(options);
    channel.#dial();
    return channel;
  }

  /** The session ended: the façade sees the channel close and refuses its viewers from then on. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#redialTimer);
    for (const socket of this.#sockets.values()) socket.terminate();
    this.#sockets.clear();
    this.#early.clear();
    this.#socket?.close(1000, 'session ended');
  }

  #dial(): void {
    const { controlUrl, namespace, podName, podToken } = this.#options;
    const url = `${controlUrl.replace(/^http/, 'ws')}/internal/v1/pods/${encodeURIComponent(namespace)}/${encodeURIComponent(podName)}${LIVE_CHANNEL_SUFFIX}`;
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${podToken}` }, maxPayload: 256 * 1024 * 1024, perMessageDeflate: false });
    this.#socket = socket;
    socket.on('open', () => {
      this.#redialDelayMs = 250;
      this.#options.log.info('live-view channel open');
    });
    socket.on('message', (data) => this.#onRequest(data));
    socket.on('error', (err) => this.#options.log.debug({ err }, 'live-view channel error'));
    socket.on('close', () => {
      for (const relayed of this.#sockets.values()) relayed.terminate();
      this.#sockets.clear();
      this.#early.clear();
      if (this.#closed) return;
      this.#redialTimer = setTimeout(() => this.#dial(), this.#redialDelayMs);
      this.#redialDelayMs = Math.min(this.#redialDelayMs * 2, MAX_REDIAL_DELAY_MS);
    });
  }

  #reply(reply: LiveReply): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(reply));
  }

  #onRequest(data: RawData): void {
    let request: LiveRequest;
    try {
      request = JSON.parse(data.toString()) as LiveRequest;
    } catch {
      return;
    }
    switch (request.op) {
      case 'http':
        void this.#relay.fetchAsset(request.path).then(
          (asset) => this.#reply({ op: 'http', id: request.id, status: asset.status, contentType: asset.contentType, body: asset.body.toString('base64') }),
          (err: Error) => this.#reply({ op: 'http', id: request.id, status: 502, contentType: 'text/plain', body: Buffer.from(err.message).toString('base64') }),
        );
        return;
      case 'ws-open':
        return this.#openSocket(request.id, request.path);
      case 'ws-send': {
        const socket = this.#sockets.get(request.id);
        if (socket?.readyState === WebSocket.OPEN) socket.send(request.data);
        else if ((this.#early.get(request.id)?.length ?? MAX_EARLY_MESSAGES) < MAX_EARLY_MESSAGES) this.#early.get(request.id)!.push(request.data);
        return;
      }
      case 'ws-close':
        this.#sockets.get(request.id)?.close();
        this.#sockets.delete(request.id);
        this.#early.delete(request.id);
        return;
      case 'metrics':
        return this.#reply({ op: 'metrics', id: request.id, metrics: this.#options.metrics() });
    }
  }

  #openSocket(id: number, path: string): void {
    if (this.#sockets.size >= MAX_RELAYED_SOCKETS) return this.#reply({ op: 'ws-closed', id, reason: `at most ${MAX_RELAYED_SOCKETS} live-view connections per session` });
    let socket: WebSocket;
    try {
      socket = this.#relay.openSocket(path);
    } catch (err) {
      return this.#reply({ op: 'ws-closed', id, reason: (err as Error).message });
    }
    this.#sockets.set(id, socket);
    this.#early.set(id, []);
    socket.on('open', () => {
      for (const message of this.#early.get(id) ?? []) socket.send(message);
      this.#early.delete(id);
      this.#reply({ op: 'ws-opened', id });
    });
    socket.on('message', (message) => this.#reply({ op: 'ws-message', id, data: message.toString() }));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.#sockets.get(id) !== socket) return;
      this.#sockets.delete(id);
      this.#early.delete(id);
      this.#reply({ op: 'ws-closed', id, reason: 'the browser closed the connection' });
    });
  }
}
