// A request refused before its body has all arrived (no route, no key, too large, a bad part of an
// upload): the rest of its body is read and dropped, as nginx's lingering close does, so a client
// that sends its whole body before it reads the answer (most do; @browserbasehq/sdk's uploads got a
// broken pipe in one call of two) gets the answer. A body still coming after a few seconds, or past
// 64 MiB (above the default largest upload, 50 MiB), is cut off with its connection: a client
// without a key pushed 4.2 GB in 5 s over loopback.
import type { IncomingMessage } from 'node:http';

const LINGER_MS = 5000;
const LINGER_BYTES = 64 * 1024 * 1024;

export function drainRefusedBody(req: IncomingMessage): void {
  const cutOff = setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
  req.once('end', () => clearTimeout(cutOff));
  req.once('close', () => clearTimeout(cutOff));
  let drained = 0;
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > LINGER_BYTES) req.socket.destroy();
  });
  // A parser it was piped to (an upload's) takes nothing more.
  req.unpipe();
  req.resume();
}
