// The Lambda-style runtime API the user process polls (AWS_LAMBDA_RUNTIME_API). One invocation per
// pod: the first `next` is answered once the invocation is ready, every later one is held open
// until the pod ends (the process is killed after its result is in). It listens before the run
// that serves it exists (head-start.ts): requests that come before the run gives it its handlers wait.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const PREFIX = '/2018-06-01/runtime';
const RESULT_PATH = new RegExp(`^${PREFIX}/invocation/([^/]+)/(response|error)$`);
/**
 * Requests held before serve(): a runtime sends one poll, so more are a user process flooding the
 * agent before its invocation has started; they are refused rather than kept.
 */
export const MAX_WAITING_REQUESTS = 16;

export interface ServedInvocation {
  requestId: string;
  /** Epoch milliseconds after which the pod gives up (Lambda-Runtime-Deadline-Ms). */
  deadlineMs: number;
  event: unknown;
}

export type RuntimeReport =
  | { kind: 'response'; body: string }
  | { kind: 'error'; body: string }
  | { kind: 'init-error'; body: string }
  | { kind: 'too-large'; route: 'response' | 'error' | 'init-error'; limitBytes: number };

export interface RuntimeApiHandlers {
  /** The invocation for the first `next`; while it is pending the request is held. A rejection leaves it held. */
  firstInvocation(): Promise<ServedInvocation>;
  /** The first `next` request arrived (the user code has loaded). */
  onPoll(): void;
  onReport(report: RuntimeReport): void;
}

export class RuntimeApiServer {
  readonly #server: Server;
  #handlers: RuntimeApiHandlers | undefined;
  #maxBodyBytes = 0;
  /** Requests that came before serve(). */
  readonly #waiting: [IncomingMessage, ServerResponse][] = [];
  #served: ServedInvocation | undefined;
  #polled = false;

  constructor() {
    this.#server = createServer((request, response) => {
      if (this.#handlers) this.#answer(request, response, this.#handlers);
      else if (this.#waiting.length < MAX_WAITING_REQUESTS) this.#waiting.push([request, response]);
      else sendJson(response, 429, { errorMessage: `more than ${MAX_WAITING_REQUESTS} requests before the runtime API started serving`, errorType: 'TooManyRequests' });
    });
    // Its one client is the pod's user process, whose handler may hold its event loop for minutes
    // (a big synchronous parse): Node's 5 s would close the kept-alive connection meanwhile, and the
    // runtime's result then met a hung-up socket (the invocation failed, its result lost).
    this.#server.keepAliveTimeout = 0;
  }

  /** Listens on an ephemeral loopback port; returns `host:port` for AWS_LAMBDA_RUNTIME_API. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', resolve);
    });
    const { port } = this.#server.address() as AddressInfo;
    return `127.0.0.1:${port}`;
  }

  /** Requests waiting for serve(). */
  get waitingRequests(): number {
    return this.#waiting.length;
  }

  /** Starts answering, the requests that waited first; a result's body may be `maxBodyBytes` long. */
  serve(handlers: RuntimeApiHandlers, maxBodyBytes: number): void {
    this.#handlers = handlers;
    this.#maxBodyBytes = maxBodyBytes;
    for (const [request, response] of this.#waiting.splice(0)) this.#answer(request, response, handlers);
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  #answer(request: IncomingMessage, response: ServerResponse, handlers: RuntimeApiHandlers): void {
    // Whatever the user process sends, the agent keeps running: a bad request is answered, never thrown.
    try {
      this.#route(request, response, handlers);
    } catch (error) {
      if (!response.headersSent) sendJson(response, 400, { errorMessage: `bad request: ${(error as Error).message}`, errorType: 'InvalidRequest' });
    }
  }

  #route(request: IncomingMessage, response: ServerResponse, handlers: RuntimeApiHandlers): void {
    const path = (request.url ?? '').split('?')[0];
    if (request.method === 'GET' && path === `${PREFIX}/invocation/next`) return this.#next(response, handlers);
    if (request.method === 'POST' && path === `${PREFIX}/init/error`) return this.#receive(request, response, 'init-error', handlers);
    const result = request.method === 'POST' ? RESULT_PATH.exec(path) : null;
    if (result) {
      const requestId = safeDecode(result[1]);
      if (requestId === undefined) return sendJson(response, 400, { errorMessage: 'malformed percent-escape in the request ID', errorType: 'InvalidRequestID' });
      if (!this.#served || requestId !== this.#served.requestId) {
        return sendJson(response, 400, { errorMessage: 'unknown request ID', errorType: 'InvalidRequestID' });
      }
      return this.#receive(request, response, result[2] as 'response' | 'error', handlers);
    }
    sendJson(response, 404, { errorMessage: `no route ${request.method} ${path}`, errorType: 'NotFound' });
  }

  #next(response: ServerResponse, handlers: RuntimeApiHandlers): void {
    if (this.#polled) return; // later polls: held until the pod ends
    this.#polled = true;
    handlers.onPoll();
    handlers.firstInvocation().then(
      (served) => {
        this.#served = served;
        const body = JSON.stringify(served.event);
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'lambda-runtime-aws-request-id': served.requestId,
          'lambda-runtime-deadline-ms': String(served.deadlineMs),
        });
        response.end(body);
      },
      () => undefined,
    );
  }

  #receive(request: IncomingMessage, response: ServerResponse, route: 'response' | 'error' | 'init-error', handlers: RuntimeApiHandlers): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > this.#maxBodyBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => {
      if (tooLarge) {
        handlers.onReport({ kind: 'too-large', route, limitBytes: this.#maxBodyBytes });
        return sendJson(response, 413, { errorMessage: `payload over ${this.#maxBodyBytes} bytes`, errorType: 'RequestTooLarge' });
      }
      handlers.onReport({ kind: route, body: Buffer.concat(chunks).toString('utf8') });
      sendJson(response, 202, { status: 'OK' });
    });
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
