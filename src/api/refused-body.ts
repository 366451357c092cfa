// A request refused before its body has all arrived (no route, no key, too large, a bad part of an
// upload): the rest of its body is read and dropped, as nginx's lingering close does, so a client
// that sends its whole body before it reads the answer (most do; @browserbasehq/sdk's uploads got a
// broken pipe in one call of two) gets the answer. A body still coming after a few seconds is cut
// off with its connection, so a refused request holds none for longer.
import type { IncomingMessage } from 'node:http';

const LINGER_MS = 5000;

export function drainRefusedBody(req: IncomingMessage): void {
  const cutOff = setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
  req.once('end', () => clearTimeout(cutOff));
  req.once('close', () => clearTimeout(cutOff));
  // A parser it was piped to (an upload's) takes nothing more.
  req.unpipe();
  req.resume();
}
