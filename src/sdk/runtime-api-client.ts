// The Lambda-style runtime API the pod agent serves (and @browserbasehq/sdk-functions speaks):
// GET next invocation, POST its response or error. Asked with Node's http client, not fetch: Node
// compiles fetch's client on a process's first request, about 50 ms of CPU that a cold pod's
// browser start waits behind.
import { request, type IncomingHttpHeaders } from 'node:http';
import type { FunctionErrorReport } from './types.js';

export const RUNTIME_API_PREFIX = '/2018-06-01/runtime';

export interface NextInvocation {
  requestId: string;
  event: unknown;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export class RuntimeApiClient {
  readonly #base: string;

  /** `runtimeApi` is `host:port`, the value of AWS_LAMBDA_RUNTIME_API. */
  constructor(runtimeApi: string) {
    this.#base = `http://${runtimeApi}${RUNTIME_API_PREFIX}`;
  }

  /** Waits (the server holds the request) until there is an invocation. */
  async next(): Promise<NextInvocation> {
    const answer = await this.#call('GET', '/invocation/next');
    if (answer.status !== 200) throw new Error(`runtime API: next invocation failed with HTTP ${answer.status}`);
    const requestId = answer.headers['lambda-runtime-aws-request-id'];
    if (typeof requestId !== 'string' || !requestId) throw new Error('runtime API: next invocation has no Lambda-Runtime-Aws-Request-Id header');
    return { requestId, event: JSON.parse(answer.body) as unknown };
  }

  /** Posts the handler's result; `json` undefined means the handler returned nothing. */
  async respond(requestId: string, json: string | undefined): Promise<void> {
    await this.#post(`/invocation/${encodeURIComponent(requestId)}/response`, json);
  }

  async fail(requestId: string, report: FunctionErrorReport): Promise<void> {
    await this.#post(`/invocation/${encodeURIComponent(requestId)}/error`, JSON.stringify(report));
  }

  async #post(path: string, body: string | undefined): Promise<void> {
    const answer = await this.#call('POST', path, body ?? '');
    if (answer.status < 200 || answer.status > 299) throw new Error(`runtime API: POST ${path} failed with HTTP ${answer.status}`);
  }

  #call(method: string, path: string, body?: string): Promise<Answer> {
    const headers = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    return new Promise((resolve, reject) => {
      const sent = request(`${this.#base}${path}`, { method, headers }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.once('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: Buffer.concat(chunks).toString('utf8') }));
        answer.once('error', reject);
      });
      sent.once('error', reject);
      sent.end(body);
    });
  }
}
