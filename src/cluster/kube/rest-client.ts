// HTTP transport to the API server. @kubernetes/client-node reads the kubeconfig (or the in-cluster
// service account) and supplies TLS material and credentials for every request (tokens that rotate
// are re-read); requests go over one keep-alive agent, so connections are pooled and a destroyed
// request closes its socket. Every write sends application/json (POST, PUT, DELETE); the port
// needs no PATCH.
import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { errorFromStatus } from './errors.js';

export type Query = Record<string, string | undefined>;

const REQUEST_TIMEOUT_MS = 60_000;

export interface JsonResponse {
  statusCode: number;
  body: unknown;
}

export class KubeRestClient {
  private readonly server: URL;
  private readonly agent: http.Agent | undefined;

  constructor(private readonly config: KubeConfig) {
    const cluster = config.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster: set current-context to a context whose cluster exists');
    this.server = new URL(cluster.server);
    // A proxied cluster uses the agent client-node builds for it (one per request, not pooled).
    this.agent = cluster.proxyUrl ? undefined : this.server.protocol === 'http:' ? new http.Agent({ keepAlive: true }) : new https.Agent({ keepAlive: true });
  }

  get serverUrl(): string {
    return this.server.origin;
  }

  /** Sends a request and parses the JSON answer; a non-2xx answer rejects with the port's error class. */
  async requestJson(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, options: { query?: Query; body?: unknown } = {}): Promise<JsonResponse> {
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const req = await this.open(method, path, options.query, payload && { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${path}: no answer from ${this.serverUrl} within ${REQUEST_TIMEOUT_MS} ms`)));
    const res = await responseOf(req, payload);
    const text = await readAll(res);
    const body = parseBody(res, text);
    if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode > 299) {
      throw errorFromStatus(res.statusCode ?? 0, body, `${method} ${path}`);
    }
    return { statusCode: res.statusCode, body };
  }

  /**
   * Opens a streaming GET (a watch). Resolves with the live response once the server answered 200;
   * any other answer rejects with the port's error class. The caller owns `request`: destroy it to stop.
   */
  async openStream(path: string, query: Query): Promise<{ request: ClientRequest; response: IncomingMessage }> {
    const request = await this.open('GET', path, query);
    // The answer's headers must come in time; the stream itself may then stay quiet for minutes.
    request.setTimeout(REQUEST_TIMEOUT_MS, () => request.destroy(new Error(`GET ${path}: no answer from ${this.serverUrl} within ${REQUEST_TIMEOUT_MS} ms`)));
    const response = await responseOf(request);
    request.setTimeout(0);
    if (response.statusCode !== 200) {
      const text = await readAll(response).catch(() => '');
      throw errorFromStatus(response.statusCode ?? 0, parseBody(response, text), `GET ${path}`);
    }
    return { request, response };
  }

  /** Closes pooled connections; requests still open keep theirs until they end. */
  close(): void {
    this.agent?.destroy();
  }

  private async open(method: string, path: string, query: Query = {}, extraHeaders: Record<string, string> = {}): Promise<ClientRequest> {
    const options: https.RequestOptions = {};
    // Credentials and TLS material per request: exec plugins and token files may rotate them.
    await this.config.applyToHTTPSOptions(options);
    // Kept as a prefix: some servers sit under a path (https://host/k8s/clusters/c1).
    const url = new URL(this.server.origin + this.server.pathname.replace(/\/$/, '') + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
    const request = (this.server.protocol === 'http:' ? http.request : https.request)(url, {
      ...options,
      agent: this.agent ?? options.agent,
      method,
      headers: { ...(options.headers as Record<string, string> | undefined), Accept: 'application/json', ...extraHeaders },
    });
    return request;
  }
}

function responseOf(req: ClientRequest, payload?: Buffer): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
    req.end(payload);
  });
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.once('error', reject);
    res.once('aborted', () => reject(new Error('the connection to the API server closed mid-answer')));
  });
}

function parseBody(res: IncomingMessage, text: string): unknown {
  if (!text) return undefined;
  if (!String(res.headers['content-type'] ?? '').includes('json')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
