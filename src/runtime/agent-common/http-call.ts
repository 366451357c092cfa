// One HTTP(S) request with Node's own client, for the agents. Not fetch: Node compiles fetch's
// client (its bundled undici) on a process's first request, about 40 ms of CPU in every pod, which a
// cold pod would spend while its browser starts on the same cores.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpCall {
  method: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Until the answer's body has been read to its end (or the reader stops reading). */
  timeoutMs: number;
  /** Breaks the request (and its body) off, when the caller no longer wants the answer. */
  signal?: AbortSignal;
}

/**
 * Sends the request; resolves with the answer once its head has arrived. Its body is the caller's
 * to read, and breaks off with an error when the time is up.
 */
export function httpCall(url: string, { method, headers = {}, body, timeoutMs, signal }: HttpCall): Promise<IncomingMessage> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : target.protocol === 'http:' ? httpRequest : undefined;
  if (!send) return Promise.reject(new Error(`${url}: only http and https are supported`));
  return new Promise((resolve, reject) => {
    const sized = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    let answer: IncomingMessage | undefined;
    const request = send(target, { method, headers: sized }, (head) => resolve((answer = head)));
    // The body's reader gets the reason too, not a bare "aborted".
    const breakOff = (reason: Error) => {
      answer?.destroy(reason);
      request.destroy(reason);
    };
    const timer = setTimeout(() => breakOff(new Error(`no complete answer within ${timeoutMs / 1000} s`)), timeoutMs);
    const onAbort = () => breakOff(new Error('no longer wanted'));
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    // 'close' comes once the answer has been read, or the connection is gone.
    request.once('close', () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    });
    request.once('error', reject);
    request.end(body);
  });
}

/** The whole body of an answer. */
export async function readBody(answer: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
