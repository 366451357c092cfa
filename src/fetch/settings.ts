// Settings of POST /v1/fetch, read once from BROWSERFN_FETCH_* environment variables.
// Every variable, its default and meaning is listed in docs/fetch.md.
import { availableParallelism } from 'node:os';
import ipaddr from 'ipaddr.js';
import { boolValue, intValue } from '../config/env-values.js';

export const FETCH_FORMATS = ['raw', 'markdown', 'json'] as const;
export type FetchFormat = (typeof FETCH_FORMATS)[number];

export interface FetchSettings {
  /** Whole-request budget: DNS, connect, redirects, body and conversion. */
  timeoutMs: number;
  /** Largest body accepted (after decompression). */
  maxBodyBytes: number;
  /** Redirect hops followed when allowRedirects is true. */
  maxRedirects: number;
  /** Fetches running at once for one project. */
  maxConcurrentPerProject: number;
  /** Fetches running at once in this process. */
  maxConcurrentTotal: number;
  /** Lifts the SSRF guard entirely (tests, trusted networks). */
  allowPrivate: boolean;
  /** Networks allowed even though they are private or internal. */
  allowCidrs: [ipaddr.IPv4 | ipaddr.IPv6, number][];
  /** HTTP proxy (CONNECT) used when a request sets proxies: true. */
  proxyUrl?: URL;
  userAgent: string;
  /** Worker threads converting pages to markdown or JSON. */
  workers: number;
  /** Longest a single conversion may run (also bounded by what is left of timeoutMs). */
  conversionTimeoutMs: number;
  /** Heap limit of a conversion worker. */
  workerHeapMb: number;
  /** Enabled formats per project; `*` is every other project. */
  formats: Map<string, Set<FetchFormat>>;
  /** Quotas per project and format within one window; absent means unlimited. */
  quotas: QuotaRule[];
  quotaWindowMs: number;
}

export interface QuotaRule {
  /** A project name or `*`. */
  project: string;
  /** A format or `*`. */
  format: FetchFormat | '*';
  limit: number;
}

export function loadFetchSettings(env: NodeJS.ProcessEnv = process.env): FetchSettings {
  const cores = availableParallelism();
  return {
    timeoutMs: intValue(env['BROWSERFN_FETCH_TIMEOUT_MS'], 'BROWSERFN_FETCH_TIMEOUT_MS', 60_000, 100, 600_000),
    maxBodyBytes: intValue(env['BROWSERFN_FETCH_MAX_BODY_BYTES'], 'BROWSERFN_FETCH_MAX_BODY_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    maxRedirects: intValue(env['BROWSERFN_FETCH_MAX_REDIRECTS'], 'BROWSERFN_FETCH_MAX_REDIRECTS', 10, 0, 50),
    maxConcurrentPerProject: intValue(env['BROWSERFN_FETCH_MAX_CONCURRENT_PER_PROJECT'], 'BROWSERFN_FETCH_MAX_CONCURRENT_PER_PROJECT', 16, 1, 10_000),
    maxConcurrentTotal: intValue(env['BROWSERFN_FETCH_MAX_CONCURRENT'], 'BROWSERFN_FETCH_MAX_CONCURRENT', 64, 1, 100_000),
    allowPrivate: boolValue(env['BROWSERFN_FETCH_ALLOW_PRIVATE'], 'BROWSERFN_FETCH_ALLOW_PRIVATE'),
    allowCidrs: cidrs(env.BROWSERFN_FETCH_ALLOW_CIDRS),
    proxyUrl: proxy(env.BROWSERFN_FETCH_PROXY),
    userAgent: env.BROWSERFN_FETCH_USER_AGENT?.trim() || 'Mozilla/5.0 (compatible; browserfn-fetch/0.1)',
    workers: intValue(env['BROWSERFN_FETCH_WORKERS'], 'BROWSERFN_FETCH_WORKERS', Math.max(2, Math.min(4, cores)), 1, 64),
    conversionTimeoutMs: intValue(env['BROWSERFN_FETCH_CONVERSION_TIMEOUT_MS'], 'BROWSERFN_FETCH_CONVERSION_TIMEOUT_MS', 30_000, 100, 600_000),
    workerHeapMb: intValue(env['BROWSERFN_FETCH_WORKER_HEAP_MB'], 'BROWSERFN_FETCH_WORKER_HEAP_MB', 512, 64, 16_384),
    formats: formats(env.BROWSERFN_FETCH_FORMATS),
    quotas: quotas(env.BROWSERFN_FETCH_QUOTAS),
    quotaWindowMs: intValue(env['BROWSERFN_FETCH_QUOTA_WINDOW_SECONDS'], 'BROWSERFN_FETCH_QUOTA_WINDOW_SECONDS', 86_400, 1, 366 * 86_400) * 1000,
  };
}



function cidrs(raw: string | undefined): [ipaddr.IPv4 | ipaddr.IPv6, number][] {
  if (!raw?.trim()) return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return s.includes('/') ? ipaddr.parseCIDR(s) : ([ipaddr.parse(s), ipaddr.parse(s).kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number]);
      } catch {
        throw new Error(`BROWSERFN_FETCH_ALLOW_CIDRS: "${s}" is not an address or CIDR range such as 10.0.0.0/8`);
      }
    });
}

function proxy(raw: string | undefined): URL | undefined {
  if (!raw?.trim()) return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`BROWSERFN_FETCH_PROXY must be a URL such as http://user:pass@proxy:3128, got "${raw}"`);
  }
  if (url.protocol !== 'http:') throw new Error(`BROWSERFN_FETCH_PROXY must be an http:// proxy (it is sent CONNECT), got "${url.protocol}"`);
  return url;
}

/** `raw,markdown,json` (every project) or `*=raw,markdown;trial=raw` (per project, `*` for the rest). */
function formats(raw: string | undefined): Map<string, Set<FetchFormat>> {
  const result = new Map<string, Set<FetchFormat>>([['*', new Set(FETCH_FORMATS)]]);
  if (!raw?.trim()) return result;
  const rules = raw.includes('=') ? raw.split(';') : [`*=${raw}`];
  for (const rule of rules.map((r) => r.trim()).filter((r) => r !== '')) {
    const at = rule.indexOf('=');
    const project = rule.slice(0, at).trim();
    if (at <= 0 || !project) throw new Error(`BROWSERFN_FETCH_FORMATS: "${rule}" must be project=format,format`);
    const list = rule
      .slice(at + 1)
      .split(',')
      .map((f) => f.trim())
      .filter((f) => f !== '');
    for (const f of list) {
      if (!(FETCH_FORMATS as readonly string[]).includes(f)) throw new Error(`BROWSERFN_FETCH_FORMATS: unknown format "${f}" (raw, markdown, json)`);
    }
    result.set(project, new Set(list as FetchFormat[]));
  }
  return result;
}

/** `*:markdown=1000;trial:*=50`: project:format=limit, `*` matching any project or format. */
function quotas(raw: string | undefined): QuotaRule[] {
  if (!raw?.trim()) return [];
  return raw
    .split(';')
    .map((r) => r.trim())
    .filter((r) => r !== '')
    .map((rule) => {
      const match = /^([^:=\s]+):([^:=\s]+)=(\d+)$/.exec(rule);
      const format = match?.[2];
      if (!match || (format !== '*' && !(FETCH_FORMATS as readonly string[]).includes(format!))) {
        throw new Error(`BROWSERFN_FETCH_QUOTAS: "${rule}" must be project:format=limit (format raw, markdown, json or *)`);
      }
      return { project: match[1], format: format as FetchFormat | '*', limit: Number(match[3]) };
    });
}
