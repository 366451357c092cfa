// The Lambda-style runtime API the pod agent serves (and @browserbasehq/sdk-functions speaks):
// GET next invocation, POST its response or error.
import type { FunctionErrorReport } from './types.js';

export const RUNTIME_API_PREFIX = '/2018-06-01/runtime';

export interface NextInvocation {
  requestId: string;
  event: unknown;
}

export class RuntimeApiClient {
  readonly #base: string;

  /** `runtimeApi` is `host:port`, the value of AWS_LAMBDA_RUNTIME_API. */
  constructor(runtimeApi: string) {
    this.#base = `http://${runtimeApi}${RUNTIME_API_PREFIX}`;
  }

  /** Waits (the server holds the request) until there is an invocation. */
  async next(): Promise<NextInvocation> {
    const response = await fetch(`${this.#base}/invocation/next`);
    if (!response.ok) throw new Error(`runtime API: next invocation failed with HTTP ${response.status}`);
    const requestId = response.headers.get('lambda-runtime-aws-request-id');
    if (!requestId) throw new Error('runtime API: next invocation has no Lambda-Runtime-Aws-Request-Id header');
    return { requestId, event: await response.json() };
  }

  /** Posts the handler's result; `json` undefined means the handler returned nothing. */
  async respond(requestId: string, json: string | undefined): Promise<void> {
    await this.#post(`/invocation/${encodeURIComponent(requestId)}/response`, json);
  }

  async fail(requestId: string, report: FunctionErrorReport): Promise<void> {
    await this.#post(`/invocation/${encodeURIComponent(requestId)}/error`, JSON.stringify(report));
  }

  async #post(path: string, body: string | undefined): Promise<void> {
    const response = await fetch(`${this.#base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body ?? '',
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`runtime API: POST ${path} failed with HTTP ${response.status}`);
  }
}
