// Test harness for POST /v1/fetch: the real app on 127.0.0.1:0 with only the fetch routes, and
// local upstream servers (HTTP, HTTPS with a certificate made by openssl, a CONNECT proxy).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as tcpConnect, type AddressInfo, type Socket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createApp } from '../../src/api/app.js';
import { fetchRoutes } from '../../src/api/routes/fetch.js';
import type { Resolver } from '../../src/fetch/guarded-connector.js';
import { FetchService } from '../../src/fetch/fetch-service.js';
import { loadFetchSettings } from '../../src/fetch/settings.js';
import { loadSettings } from '../../src/config/settings.js';
import { createLogger } from '../../src/config/logger.js';
import { Metrics } from '../../src/config/metrics.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import type { Archive } from '../../src/functions/archived/archive.js';
import type { WaitingInvocations } from '../../src/functions/waiting-invocations.js';

export const API_KEY = 'fetch-test-key';

export interface FetchApi {
  url: string;
  metrics: Metrics;
  /** POSTs to /v1/fetch with the test key (or the given one); resolves with status and parsed body. */
  post(body: unknown, apiKey?: string): Promise<{ status: number; body: Record<string, any> }>;
  close(): Promise<void>;
}

/** The façade with fetchRoutes(), fetch settings from `env` (SSRF guard lifted unless env says otherwise). */
export async function startFetchApi(env: NodeJS.ProcessEnv = {}, options: { resolve?: Resolver } = {}): Promise<FetchApi> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bfn-fetch-'));
  // Fetch tests drive requests as load (as many as a conversion takes): the API's rate per project is test/api/request-rate.test.ts's.
  const settings = loadSettings({ dataDir, env: { BROWSERFN_API_KEYS: `${API_KEY}:default,alpha-key:alpha,beta-key:beta`, BROWSERFN_API_RATE_PER_PROJECT: '0', ...env } });
  const metrics = new Metrics();
  const service = new FetchService(loadFetchSettings({ BROWSERFN_FETCH_ALLOW_PRIVATE: '1', BROWSERFN_FETCH_WORKERS: '2', ...env }), { resolve: options.resolve });
  const app = createApp({ settings, cluster: null as unknown as ClusterPort, log: createLogger('silent'), metrics, archive: null as unknown as Archive, waitingInvocations: null as unknown as WaitingInvocations }, { routes: fetchRoutes({ service }) });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    metrics,
    async post(body, apiKey = API_KEY) {
      const response = await fetch(`${url}/v1/fetch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-api-key': apiKey },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Upstream {
  /** Base URL such as http://127.0.0.1:40123 */
  url: string;
  port: number;
  requests: IncomingMessage[];
  close(): Promise<void>;
}

async function listen(server: Server, scheme: string, requests: IncomingMessage[]): Promise<Upstream> {
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTTP server on 127.0.0.1 answering with `handler`, keeping the requests it saw. */
export function startUpstream(handler: Handler): Promise<Upstream> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  return listen(server, 'http', requests);
}

/** A self-signed certificate for 127.0.0.1/localhost, made with the machine's openssl. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'bfn-cert-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function startHttpsUpstream(handler: Handler, tls: { key: string; cert: string }): Promise<Upstream> {
  const requests: IncomingMessage[] = [];
  const server = createHttpsServer(tls, (req, res) => {
    requests.push(req);
    handler(req, res);
  });
  return listen(server as unknown as Server, 'https', requests);
}

export interface ConnectProxy {
  url: string;
  /** The CONNECT targets asked for ("127.0.0.1:1234"). */
  tunnels: string[];
  close(): Promise<void>;
}

/** A minimal HTTP CONNECT proxy on 127.0.0.1 (optionally demanding Basic credentials). */
export async function startConnectProxy(credentials?: string): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => {
    res.writeHead(405).end();
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    if (credentials && req.headers['proxy-authorization'] !== `Basic ${Buffer.from(credentials).toString('base64')}`) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      return;
    }
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').replace(/^\[(.*)\](:\d+)$/, '$1$2').split(/:(?=\d+$)/);
    const upstream = tcpConnect({ host, port: Number(port) }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    async close() {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves when `check` is true, polling every 10 ms for at most `ms`. */
export async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
