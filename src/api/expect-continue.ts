// `Expect: 100-continue` is answered when a route starts to read the request's body, not as the
// request arrives (Node's default): a request refused before that (no key, no route, not allowed,
// too large by its Content-Length) has its answer before its client sends a byte of the body.
// Until the body is asked for, the response says `Connection: close`, so a body the server never
// asked for is never waited on or read.
import type { RequestListener, Server, ServerResponse } from 'node:http';

const waitingForContinue = new WeakSet<ServerResponse>();

/** Hands requests that expect 100-continue to `listener` without Node's 100 Continue. */
export function continueOnlyWhenBodyIsRead(server: Server, listener: RequestListener): void {
  server.on('checkContinue', (request, response) => {
    waitingForContinue.add(response);
    response.setHeader('connection', 'close');
    listener(request, response);
  });
}

/** Lets a client waiting on `Expect: 100-continue` send its body; a route calls it as it starts to read the body. */
export function askForBody(response: ServerResponse): void {
  if (!waitingForContinue.delete(response) || response.headersSent) return;
  response.removeHeader('connection');
  response.writeContinue();
}

/** Whether the client still waits to be asked for its body (it has sent none of it). */
export function bodyNotAskedFor(response: ServerResponse): boolean {
  return waitingForContinue.has(response);
}
