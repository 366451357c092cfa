// A handler's first connect with chrome-remote-interface to its own browser, made ahead of the handler.
// Each connect builds the client's API from the protocol description (about 1,300 functions, the
// package's `api.prepare`): 7-12 ms of a warm pool member's CPU, most of a warm handler's connect.
// So the code loader connects once to the pod's browser ahead (while a member waits, or while a
// cold pod's bundle loads), and the first connect that asks for exactly that browser as handlers
// do (`CDP({ target: ctx.session.connectUrl })`, no option that changes the client) gets that
// client. A browser-level connection nobody used holds nothing in the browser (no target attached,
// no domain enabled), so the handler gets what a connect of its own would give. Every other
// connect, a second one, or one after the standby connection dropped, goes chrome-remote-interface's
// usual way. Until it is handed out, the standby connection does not keep the process alive.
//
// The package's connect (`CDP(options)`) builds a client (its `Chrome` class) whose `_start`
// connects and then announces the client to the connect's promise or callback. Patched here, a
// `_start` asking for the standby's browser announces the standby client instead. (The connect
// itself cannot be swapped: the bundle's ES module import gets the package's exports as they were
// when it was loaded.)
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** What this module reads of chrome-remote-interface 0.34's client (lib/chrome.js). */
interface Client {
  target: unknown;
  protocol: unknown;
  local: boolean;
  secure: boolean;
  alterPath: (path: string) => string;
  _notifier: { emit(event: 'connect', client: Client): void };
  _start(): void;
  once(event: 'disconnect', listener: () => void): unknown;
  /** Its `ws` WebSocket, and that one's TCP socket. */
  _ws?: { _socket?: { ref?(): void; unref?(): void } | null };
}
type Connect = (options: { target: string }) => Promise<Client>;

export interface DevtoolsStandby {
  /** Connects to `wsEndpoint` ahead, once; resolves when that connect settled. */
  open(wsEndpoint: string): Promise<void>;
}

/**
 * Has the connects of the chrome-remote-interface at `packageMain` (already loaded) hand out the
 * standby connection. Undefined when that package does not have the shape this knows.
 */
export function installDevtoolsStandby(packageMain: string): DevtoolsStandby | undefined {
  const load = createRequire(packageMain);
  const connect = load(packageMain) as Connect;
  const clientPrototype = (load(join(dirname(packageMain), 'lib', 'chrome.js')) as { prototype?: Partial<Client> }).prototype;
  const start = clientPrototype?._start;
  if (typeof connect !== 'function' || !clientPrototype || typeof start !== 'function') return undefined;
  let standby: { wsEndpoint: string; take(): Promise<Client | undefined> } | undefined;
  let opening = false;
  let opened = false;

  const asksForStandby = (client: Client): boolean => {
    if (!standby || client.target !== standby.wsEndpoint || client.protocol !== undefined || client.local || client.secure) return false;
    const path = new URL(standby.wsEndpoint).pathname;
    return client.alterPath(path) === path;
  };

  clientPrototype._start = function startOrTakeStandby(this: Client): void {
    if (opening || !asksForStandby(this)) return start.call(this);
    const taken = standby!.take();
    standby = undefined;
    void taken.then((ready) => {
      if (!ready) return start.call(this);
      ready._ws?._socket?.ref?.();
      // As the client's own _start does: in the next tick, so the code's handler runs outside this promise.
      process.nextTick(() => this._notifier.emit('connect', ready));
    });
  };

  return {
    async open(wsEndpoint) {
      if (opened) return;
      opened = true;
      let dropped = false;
      // The client is made, and its `_start` called, synchronously.
      opening = true;
      let connecting: Promise<Client>;
      try {
        connecting = connect({ target: wsEndpoint });
      } finally {
        opening = false;
      }
      const client = connecting.then(
        (ready) => {
          ready.once('disconnect', () => (dropped = true));
          ready._ws?._socket?.unref?.();
          return ready;
        },
        () => undefined,
      );
      // Handed out only while it is still connected.
      standby = { wsEndpoint, take: () => client.then((ready) => (dropped ? undefined : ready)) };
      await client;
    },
  };
}
