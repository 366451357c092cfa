// The control plane as the agents see it, for agent tests: serves each pod's input and artifact
// under /internal/v1/pods/{namespace}/{pod}, checks the bearer token, records reports, browser
// pods' session records and the artifacts build pods store.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PodScript {
  input: unknown;
  /** What GET …/artifact serves (build pods: the upload; browser pods: the built artifact). */
  artifact: Buffer;
  /** The sha256 GET …/artifact announces; by default the artifact's own. */
  artifactSha256?: string;
  /** Answer this many report attempts with 503 before accepting one. */
  rejectReports?: number;
  /** Called as each report attempt arrives, and waited for before it is answered: a look at the pod while its report is on its way. */
  onReport?: () => void | Promise<void>;
  /** Called as the session records arrive, and waited for before they are answered. */
  onSessionRecords?: () => void | Promise<void>;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

export class TestControlPlane {
  readonly requests: ReceivedRequest[] = [];
  readonly #pods = new Map<string, PodScript>();
  readonly #reports = new Map<string, unknown[]>();
  readonly #sessionRecords = new Map<string, unknown[]>();
  readonly #stored = new Map<string, Buffer>();
  readonly #requestWaiters: { path: string; resolve: () => void }[] = [];

  private constructor(
    private readonly server: Server,
    readonly token: string,
  ) {}

  static async start(token: string): Promise<TestControlPlane> {
    const server = createServer();
    const plane = new TestControlPlane(server, token);
    server.on('request', (request, response) => plane.#handle(request, response));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return plane;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  addPod(namespace: string, name: string, script: PodScript): void {
    this.#pods.set(`${namespace}/${name}`, script);
  }

  reportsOf(namespace: string, name: string): unknown[] {
    return this.#reports.get(`${namespace}/${name}`) ?? [];
  }

  sessionRecordsOf(namespace: string, name: string): unknown[] {
    return this.#sessionRecords.get(`${namespace}/${name}`) ?? [];
  }

  /** The artifact a build pod stored (PUT …/artifact). */
  storedArtifactOf(namespace: string, name: string): Buffer | undefined {
    return this.#stored.get(`${namespace}/${name}`);
  }

  /** Resolves once a request for `path` has been received. */
  requested(path: string): Promise<void> {
    if (this.requests.some((request) => request.path === path)) return Promise.resolve();
    return new Promise((resolve) => this.#requestWaiters.push({ path, resolve }));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const path = request.url ?? '';
    this.requests.push({ method: request.method ?? '', path, authorization: request.headers.authorization });
    for (const waiter of this.#requestWaiters.filter((w) => w.path === path)) waiter.resolve();
    const match = /^\/internal\/v1\/pods\/([^/]+)\/([^/]+)\/(input|artifact|report|session-records)$/.exec(path);
    if (!match) return end(response, 404, 'no such route');
    if (request.headers.authorization !== `Bearer ${this.token}`) return end(response, 401, 'bad token');
    const key = `${decodeURIComponent(match[1])}/${decodeURIComponent(match[2])}`;
    const pod = this.#pods.get(key);
    if (!pod) return end(response, 404, `no pod ${key}`);
    if (match[3] === 'input' && request.method === 'GET') return end(response, 200, JSON.stringify(pod.input));
    if (match[3] === 'artifact' && request.method === 'GET') {
      response.setHeader('x-artifact-sha256', pod.artifactSha256 ?? sha256(pod.artifact));
      return end(response, 200, pod.artifact);
    }
    if (match[3] === 'artifact' && request.method === 'PUT') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const bytes = Buffer.concat(chunks);
        if (sha256(bytes) !== request.headers['x-artifact-sha256']) return end(response, 400, 'sha256 mismatch');
        this.#stored.set(key, bytes);
        end(response, 201, JSON.stringify({ sha256: sha256(bytes), size: bytes.length }));
      });
      return;
    }
    if (match[3] === 'report' && request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        await pod.onReport?.();
        if ((pod.rejectReports ?? 0) > 0) {
          pod.rejectReports = (pod.rejectReports ?? 0) - 1;
          return end(response, 503, 'try again');
        }
        const report: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        this.#reports.set(key, [...(this.#reports.get(key) ?? []), report]);
        end(response, 204, '');
      });
      return;
    }
    if (match[3] === 'session-records' && request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        await pod.onSessionRecords?.();
        this.#sessionRecords.set(key, [...(this.#sessionRecords.get(key) ?? []), JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown]);
        end(response, 204, '');
      });
      return;
    }
    end(response, 405, 'method not allowed');
  }
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

function end(response: ServerResponse, status: number, body: string | Buffer): void {
  response.writeHead(status, { 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
