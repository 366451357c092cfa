// A handler's first connect with chrome-remote-interface, made cheaper ahead of the handler.
// The client asks the browser for its protocol description (`/json/protocol`, 1.6 MB of JSON) on
// every connect, which costs a handler 70-130 ms before its first command. The pod's browser answers
// the same every time, so the code loader fetches it once, ahead of the handler (while a pool member
// waits, or while a cold pod's bundle loads), and chrome-remote-interface's own fetch of it from that
// browser is answered from the copy. Any other address, `local: true`, a changed path, or a failed
// prefetch go chrome-remote-interface's usual way.
// The connect itself then builds the client's API from that description (about 1,300 functions) and
// opens its WebSocket. The first times in a process, V8 compiles that code and grows the heap for it
// in the middle of the connect: a pool member's handler spent 26 ms of CPU (a garbage collection
// among it), and 14 ms once three connects had run before it. So a pool member runs those three
// before it is ready (warmUpDevtoolsClient).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { httpCall, readBody } from '../agent-common/http-call.js';

type Callback = (error: Error | null, descriptor?: unknown) => void;
type ProtocolFunction = (options?: ProtocolOptions | Callback, callback?: Callback) => Promise<unknown> | undefined;

interface ProtocolOptions {
  host?: string;
  port?: string | number;
  secure?: boolean;
  local?: boolean;
  alterPath?: (path: string) => string;
}

const PROTOCOL_PATH = '/json/protocol';

/** chrome-remote-interface's clients pass an `alterPath` that changes nothing unless told otherwise. */
function askedPath(options: ProtocolOptions): string {
  return typeof options.alterPath === 'function' ? options.alterPath(PROTOCOL_PATH) : PROTOCOL_PATH;
}

/**
 * Fetches the protocol of the browser at `wsEndpoint` (its DevTools WebSocket URL) and has the
 * chrome-remote-interface that `packageMain` belongs to answer its requests for it from this copy.
 * Does nothing when that package does not have the shape it knows.
 */
export function serveDevtoolsProtocolFromCache(packageMain: string, wsEndpoint: string): void {
  const browser = new URL(wsEndpoint);
  const load = createRequire(packageMain);
  // Its connects call the devtools module's Protocol; its `CDP.Protocol` is a copy of it taken at load.
  const devtoolsModule = load(join(dirname(packageMain), 'lib', 'devtools.js')) as { Protocol?: ProtocolFunction };
  const mainModule = load(packageMain) as { Protocol?: ProtocolFunction };
  const original = devtoolsModule.Protocol;
  if (typeof original !== 'function') return;
  const fetched = fetchProtocol(browser.hostname, browser.port);
  // Awaited only by a connect to this browser: until then a failure is nobody's concern.
  fetched.catch(() => undefined);
  // The client deletes fields of the descriptor it is given, so each gets one of its own, as from
  // the browser; the first, parsed ahead, is the one a handler's first connect waits for.
  let firstTaken = false;
  const descriptorCopy = (): Promise<unknown> =>
    fetched.then(({ text, parsed }) => {
      if (firstTaken) return JSON.parse(text) as unknown;
      firstTaken = true;
      return parsed;
    });
  const isThisBrowser = (options: ProtocolOptions): boolean =>
    !options.local && !options.secure && sameHost(options.host, browser.hostname) && String(options.port) === browser.port && askedPath(options) === PROTOCOL_PATH;

  const cachedProtocol: ProtocolFunction = (optionsOrCallback, maybeCallback) => {
    const options = typeof optionsOrCallback === 'object' && optionsOrCallback !== null ? optionsOrCallback : {};
    const callback = typeof optionsOrCallback === 'function' ? optionsOrCallback : maybeCallback;
    if (!isThisBrowser(options)) return original(optionsOrCallback, maybeCallback);
    const descriptor = descriptorCopy().catch(() => original(options));
    if (!callback) return descriptor;
    descriptor.then((value) => callback(null, value), (error: Error) => callback(error));
    return undefined;
  };
  devtoolsModule.Protocol = cachedProtocol;
  if (mainModule.Protocol === original) mainModule.Protocol = cachedProtocol;
}

function sameHost(host: string | undefined, browserHost: string): boolean {
  return host === browserHost || (host === 'localhost' && browserHost === '127.0.0.1');
}

/** How long the browser may take to send its protocol; after that a connect fetches it its own way. */
const PROTOCOL_FETCH_TIMEOUT_MS = 10_000;

async function fetchProtocol(host: string, port: string): Promise<{ text: string; parsed: unknown }> {
  const answer = await httpCall(`http://${host}:${port}${PROTOCOL_PATH}`, { method: 'GET', timeoutMs: PROTOCOL_FETCH_TIMEOUT_MS });
  const text = (await readBody(answer)).toString('utf8');
  if (answer.statusCode !== 200) throw new Error(`the browser answered ${PROTOCOL_PATH} with ${answer.statusCode}`);
  return { text, parsed: JSON.parse(text) as unknown };
}

/** Connects run by a pool member before it is ready. After one, the handler's connect still met four garbage collections. */
const WARM_UP_CONNECTS = 3;

interface WarmUpClient {
  send(method: string): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Connects to the browser at `wsEndpoint` with the chrome-remote-interface that `packageMain`
 * belongs to, asks for its version and disconnects, WARM_UP_CONNECTS times. Browser-level and
 * read-only: nothing of it stays in the browser the handler gets. `local: true` builds from the
 * client's own copy of the protocol, so the cached one is kept whole for the handler.
 */
export async function warmUpDevtoolsClient(packageMain: string, wsEndpoint: string): Promise<void> {
  const connect = createRequire(packageMain)(packageMain) as (options: { target: string; local: boolean }) => Promise<WarmUpClient>;
  for (let i = 0; i < WARM_UP_CONNECTS; i += 1) {
    const client = await connect({ target: wsEndpoint, local: true });
    try {
      await client.send('Browser.getVersion');
    } finally {
      await client.close();
    }
  }
}
