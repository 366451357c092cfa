// A request refused before its body has all arrived (no route, no key, too large, a bad part of an
// upload): the rest of its body is read and dropped, as nginx's lingering close does, so a client
// that sends its whole body before it reads the answer (most do; @browserbasehq/sdk's uploads got a
// broken pipe in one call of two) gets the answer. A body still coming after a few seconds, or past
// the bound below, is cut off with its connection: a client without a key pushed 4.2 GB in 5 s over
// loopback.
import type { IncomingMessage } from 'node:http';

const LINGER_MS = 5000;
const MiB = 1024 * 1024;

/**
 * Most of a refused body read out: 64 MiB, or a largest upload (BROWSERFN_MAX_ARCHIVE_BYTES) and
 * its multipart framing when that is more, so an upload the server could take is answered whole.
 */
export function refusedBodyBound(maxArchiveBytes: number): number {
  return Math.max(64 * MiB, maxArchiveBytes + MiB);
}

export function drainRefusedBody(req: IncomingMessage, maxBytes: number): void {
  const cutOff = setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
  req.once('end', () => clearTimeout(cutOff));
  req.once('close', () => clearTimeout(cutOff));
  let drained = 0;
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > maxBytes) req.socket.destroy();
  });
  // A parser it was piped to (an upload's) takes nothing more.
  req.unpipe();
  req.resume();
}
