// The live-view channels of the running sessions this façade process holds, by project and session.
// A channel lives in the process its pod dialled: with several API replicas, a viewer's requests
// must reach that same replica (docs/live-view.md).
import type WebSocket from 'ws';
import { PodChannel } from './pod-channel.js';

const key = (project: string, sessionId: string): string => `${project}/${sessionId.toLowerCase()}`;

export class LiveHub {
  readonly #channels = new Map<string, PodChannel>();
  readonly #waiters = new Map<string, Set<(channel: PodChannel) => void>>();

  /** The pod of this session dialled in; a channel it had before (a redial) is replaced. */
  attach(project: string, sessionId: string, socket: WebSocket): PodChannel {
    const id = key(project, sessionId);
    const channel = new PodChannel(socket);
    const previous = this.#channels.get(id);
    this.#channels.set(id, channel);
    previous?.close();
    channel.onClose(() => {
      if (this.#channels.get(id) === channel) this.#channels.delete(id);
    });
    for (const resolve of this.#waiters.get(id) ?? []) resolve(channel);
    this.#waiters.delete(id);
    return channel;
  }

  get(project: string, sessionId: string): PodChannel | undefined {
    return this.#channels.get(key(project, sessionId));
  }

  /** The channel, waiting up to `timeoutMs` for a pod that has just started to dial in. */
  async waitFor(project: string, sessionId: string, timeoutMs: number): Promise<PodChannel | undefined> {
    const id = key(project, sessionId);
    const present = this.#channels.get(id);
    if (present) return present;
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(id) ?? new Set();
      this.#waiters.set(id, waiters);
      const done = (channel: PodChannel | undefined) => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.#waiters.get(id) === waiters) this.#waiters.delete(id);
        resolve(channel);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      waiters.add(done);
    });
  }

  /** Server shutdown: every channel and its viewers end. */
  closeAll(): void {
    for (const channel of this.#channels.values()) channel.close();
    this.#channels.clear();
  }
}
