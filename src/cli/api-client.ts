// A small client for the façade, used by the CLI commands.

/** An answer that was not 2xx: its status says what the caller may do next (a 404: look elsewhere). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  apiUrl?: string;
  apiKey?: string;
}

export class ApiClient {
  readonly baseUrl: string;
  private readonly apiKey: string;

  constructor(options: ClientOptions = {}) {
    this.baseUrl = (options.apiUrl ?? process.env.BROWSERFN_API_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
    const key = options.apiKey ?? process.env.BROWSERFN_API_KEY;
    if (!key) throw new Error('Set BROWSERFN_API_KEY to your API key (`browserfn serve` prints it on first start)');
    this.apiKey = key;
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = { method, headers: { 'x-svc-api-key': this.apiKey } };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    let response = await this.send(path, init);
    // A 429 did nothing (the project's request rate, or its queue of invocations, is full): wait as told, then again.
    for (let retry = 0; response.status === 429 && retry < MAX_RETRIES_OF_429; retry++) {
      await response.body?.cancel();
      await sleep(retryAfterMs(response.headers.get('retry-after')));
      response = await this.send(path, init);
    }
    const text = await response.text();
    const json = text ? (JSON.parse(text) as unknown) : undefined;
    if (!response.ok) {
      const message = (json as { message?: string } | undefined)?.message ?? text;
      throw new ApiError(`${method} ${path} failed with ${response.status}: ${message}`, response.status);
    }
    return json as T;
  }

  private async send(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(this.baseUrl + path, init);
    } catch (err) {
      throw new Error(`Cannot reach ${this.baseUrl}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
    }
  }
}

const MAX_RETRIES_OF_429 = 5;
const MAX_RETRY_WAIT_MS = 60_000;

/** Retry-After in seconds (the API's form), within a minute; a second when it says nothing usable. */
function retryAfterMs(header: string | null): number {
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, MAX_RETRY_WAIT_MS) : 1000;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
