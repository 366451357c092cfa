// The proxy a proxied session's browser goes through, on the pod's loopback: Chromium has one
// --proxy-server and no way to give it credentials, so each request is sent on from here the way
// the session's `proxies` route its host (src/schemas/session-proxies.ts): through the caller's
// proxy or the operator's, with their credentials, or direct. The browser starts before the
// invocation is known; its requests wait here until the routes are.
import { lookup } from 'node:dns/promises';
import { Server, type PrepareRequestFunctionResult } from 'proxy-chain';
import { proxyRouter, proxyRoutes, type ProxyVia } from '../../schemas/session-proxies.js';

export class SessionProxy {
  readonly #server: Server;
  #giveRouter!: (router: (hostname: string) => ProxyVia) => void;
  readonly #router = new Promise<(hostname: string) => ProxyVia>((resolve) => (this.#giveRouter = resolve));
  #operatorProxy: string | undefined;

  private constructor(port: number) {
    this.#server = new Server({
      host: '127.0.0.1',
      port,
      verbose: false,
      prepareRequestFunction: async ({ hostname, isHttp }) => {
        const via = (await this.#router)(hostname);
        if (via.kind === 'direct') return isHttp ? unresolvedResponse(hostname) : {};
        // The control plane hands the operator's proxy along whenever a route needs it.
        return { upstreamProxyUrl: via.kind === 'external' ? via.url : this.#operatorProxy };
      },
    });
  }

  /** Listens on `port` of the loopback (0: any free port). */
  static async start(port: number): Promise<SessionProxy> {
    const proxy = new SessionProxy(port);
    await proxy.#server.listen();
    return proxy;
  }

  /** What Chromium's --proxy-server names. */
  get url(): string {
    return `http://127.0.0.1:${this.#server.port}`;
  }

  /** The invocation's session config, whose proxies route, and the operator's proxy those of type "browserbase" (or proxies: true) take. */
  route(sessionConfig: Record<string, unknown>, operatorProxy: string | undefined): void {
    this.#operatorProxy = operatorProxy;
    this.#giveRouter(proxyRouter(proxyRoutes(sessionConfig)));
  }

  close(): Promise<void> {
    return this.#server.close(true);
  }
}

/**
 * A plain http:// request sent direct to a host that does not resolve gets a 502 saying so: the
 * proxy library would answer 404, which a handler would take for the site's own. (An https://
 * one fails its tunnel, net::ERR_TUNNEL_CONNECTION_FAILED in the browser.)
 */
async function unresolvedResponse(hostname: string): Promise<PrepareRequestFunctionResult> {
  try {
    await lookup(hostname);
    return {};
  } catch {
    const body = `browserfn session proxy: the host ${hostname} could not be resolved`;
    return { customResponseFunction: () => ({ statusCode: 502, headers: { 'content-type': 'text/plain; charset=utf-8' }, body }) };
  }
}
