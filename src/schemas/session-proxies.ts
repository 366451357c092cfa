// A session's `proxies` as routes its browser's traffic takes, the create-session way:
//   true                          every request through the operator's proxy (BROWSERFN_BROWSER_PROXY);
//   [{type, domainPattern?, …}]   the first entry whose domainPattern matches the request's host
//                                 decides; an entry without one matches every host; a host no
//                                 entry matches goes direct.
// type "external" is the caller's proxy (server, username, password), "browserbase" the operator's
// (the managed proxy network there), "none" direct. domainPattern is a regular expression that must
// match the whole host name, run on the linear-time engine.
import { compileLinearRegExp } from './linear-regexp.js';

export type ProxyVia = { kind: 'direct' } | { kind: 'operator' } | { kind: 'external'; url: string };

export interface ProxyRoute {
  /** The regular expression the whole host name must match; unset: every host. */
  domainPattern?: string;
  via: ProxyVia;
}

const PROXY_PROTOCOLS = ['http:', 'https:', 'socks4:', 'socks5:'];
const MAX_ROUTES = 20;

interface ProxyEntry {
  type?: unknown;
  server?: unknown;
  username?: unknown;
  password?: unknown;
  domainPattern?: unknown;
  geolocation?: unknown;
}

/** The routes of a (validated) session config; empty when its browser takes no proxy. */
export function proxyRoutes(sessionConfig: Record<string, unknown> | undefined): ProxyRoute[] {
  const proxies = sessionConfig?.proxies;
  if (proxies === true) return [{ via: { kind: 'operator' } }];
  if (!Array.isArray(proxies)) return [];
  return (proxies as ProxyEntry[]).flatMap((entry): ProxyRoute[] => {
    const domainPattern = typeof entry.domainPattern === 'string' ? { domainPattern: entry.domainPattern } : {};
    if (entry.type === 'browserbase') return [{ ...domainPattern, via: { kind: 'operator' } }];
    if (entry.type !== 'external') return [{ ...domainPattern, via: { kind: 'direct' } }];
    // Only a config stored before servers were checked can lack a usable one: that entry routes nothing.
    const url = externalProxyUrl(entry);
    return url ? [{ ...domainPattern, via: { kind: 'external', url } }] : [];
  });
}

/** The session config as the API shows it: a proxy's password, given apart or in its server's URL, is never echoed. */
export function withoutProxyPasswords<T extends Record<string, unknown>>(sessionConfig: T): T {
  if (!Array.isArray(sessionConfig.proxies)) return sessionConfig;
  const proxies = (sessionConfig.proxies as ProxyEntry[]).map((entry) => ({
    ...entry,
    ...(entry.password === undefined ? {} : { password: REDACTED }),
    ...(typeof entry.server === 'string' ? { server: serverWithoutPassword(entry.server) } : {}),
  }));
  return { ...sessionConfig, proxies };
}

const REDACTED = '[REDACTED]';

function serverWithoutPassword(server: string): string {
  const userinfo = /^([a-z][a-z0-9+.-]*:\/\/)?([^@/]*)@/i.exec(server);
  if (!userinfo?.[2]?.includes(':')) return server;
  const [user] = userinfo[2].split(':');
  return `${userinfo[1] ?? ''}${user}:${REDACTED}@${server.slice(userinfo[0].length)}`;
}

/** Whether the session's proxies send any request through the operator's proxy. */
export const usesOperatorProxy = (sessionConfig: Record<string, unknown> | undefined): boolean => proxyRoutes(sessionConfig).some((route) => route.via.kind === 'operator');

/** What is wrong with a session config's `proxies` beyond its JSON Schema, each naming its field. */
export function proxyProblems(sessionConfig: Record<string, unknown>): string[] {
  const proxies = sessionConfig.proxies;
  if (!Array.isArray(proxies)) return [];
  if (proxies.length > MAX_ROUTES) return [`proxies has ${proxies.length} entries; at most ${MAX_ROUTES}`];
  const problems: string[] = [];
  (proxies as ProxyEntry[]).forEach((entry, index) => {
    const field = `proxies.${index}`;
    if (typeof entry.domainPattern === 'string') {
      try {
        compileLinearRegExp(entry.domainPattern);
      } catch (err) {
        problems.push(`${field}.domainPattern is not a usable regular expression: ${(err as Error).message}`);
      }
    }
    if (entry.type === 'external') {
      if (typeof entry.server !== 'string' || !entry.server) problems.push(`${field}.server is required for an external proxy (http://host:port)`);
      else if (!externalProxyUrl(entry)) problems.push(`${field}.server must be a proxy address such as http://proxy.example:3128 (http, https, socks4 or socks5), got "${entry.server}"`);
    } else if (entry.server !== undefined || entry.username !== undefined || entry.password !== undefined) {
      problems.push(`${field} has server, username or password, which only an entry of type "external" takes`);
    }
    if (entry.geolocation !== undefined) {
      problems.push(`${field}.geolocation cannot be applied: type "browserbase" goes through the operator's proxy, which has no locations to choose from; leave it out`);
    }
  });
  return problems;
}

/** Which way `routes` send a host name: the first route whose pattern matches it, else direct. */
export function proxyRouter(routes: ProxyRoute[]): (hostname: string) => ProxyVia {
  const compiled = routes.map((route) => ({ via: route.via, pattern: route.domainPattern === undefined ? undefined : compileLinearRegExp(`^(?:${route.domainPattern})$`) }));
  return (hostname) => {
    const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    return compiled.find((route) => !route.pattern || route.pattern.test(host))?.via ?? { kind: 'direct' };
  };
}

const externalProxyUrl = (entry: ProxyEntry): string | undefined =>
  typeof entry.server === 'string' ? proxyUrl(entry.server, typeof entry.username === 'string' ? entry.username : undefined, typeof entry.password === 'string' ? entry.password : undefined) : undefined;

/**
 * A proxy's address (`http://host:port`, or `host:port` for http) as a URL with the credentials
 * given, or undefined when it is not a proxy address.
 */
function proxyUrl(server: string, username?: string, password?: string): string | undefined {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `http://${server}`);
  } catch {
    return undefined;
  }
  if (!PROXY_PROTOCOLS.includes(url.protocol) || !url.hostname || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) return undefined;
  if (username !== undefined) url.username = encodeURIComponent(username);
  if (password !== undefined) url.password = encodeURIComponent(password);
  return url.href.replace(/\/$/, '');
}
