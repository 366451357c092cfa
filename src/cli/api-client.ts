// A small client for the façade, used by the CLI commands.
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
    let response: Response;
    try {
      response = await fetch(this.baseUrl + path, init);
    } catch (err) {
      throw new Error(`Cannot reach ${this.baseUrl}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
    }
    const text = await response.text();
    const json = text ? (JSON.parse(text) as unknown) : undefined;
    if (!response.ok) {
      const message = (json as { message?: string } | undefined)?.message ?? text;
      throw new Error(`${method} ${path} failed with ${response.status}: ${message}`);
    }
    return json as T;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
