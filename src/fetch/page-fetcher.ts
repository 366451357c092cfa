// Fetches one URL over HTTP(S) with undici: GET, manual redirects (each hop goes through the
// guarded connector again), a body cap applied while streaming and after decompression, and one
// deadline for the whole exchange. Failures become FetchFailure with the API's status codes.
import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions } from 'node:zlib';
import { AddressPolicy } from './address-policy.js';
import { ConnectRefusedError, guardedConnector, systemResolver, type Resolver } from './guarded-connector.js';
import { FetchFailure } from './fetch-failure.js';
import type { FetchSettings } from './settings.js';
import { formatBytes, formatDuration } from './units.js';

export interface FetchedPage {
  /** The URL of the response (after redirects). */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface PageRequest {
  url: URL;
  allowRedirects: boolean;
  allowInsecureSsl: boolean;
  useProxy: boolean;
  /** Epoch milliseconds after which the fetch is abandoned. */
  deadline: number;
}

// Decompression runs on libuv's thread pool, not on the request thread.
type Decompress = (input: Buffer, options: ZlibOptions) => Promise<Buffer>;
const gunzipAsync = promisify(gunzip) as Decompress;
const brotliAsync = promisify(brotliDecompress) as Decompress;
const inflateAsync = promisify(inflate) as Decompress;
const inflateRawAsync = promisify(inflateRaw) as Decompress;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export class PageFetcher {
  private readonly agents = new Map<string, Agent>();
  private readonly policy: AddressPolicy;

  constructor(
    private readonly settings: FetchSettings,
    private readonly resolve: Resolver = systemResolver,
  ) {
    this.policy = new AddressPolicy({ allowPrivate: settings.allowPrivate, allowCidrs: settings.allowCidrs });
  }

  async fetch(request: PageRequest): Promise<FetchedPage> {
    const timeout = new AbortController();
    const remaining = request.deadline - Date.now();
    const timer = setTimeout(() => timeout.abort(), Math.max(0, remaining));
    try {
      let url = request.url;
      for (let hop = 0; ; hop++) {
        const response = await this.exchange(url, request, timeout.signal);
        const location = response.headers.location;
        if (!request.allowRedirects || !REDIRECT_STATUSES.has(response.statusCode) || location === undefined) {
          return { url: url.href, status: response.statusCode, headers: flattenHeaders(response.headers), body: await this.readBody(response, url) };
        }
        await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        if (hop >= this.settings.maxRedirects) {
          throw new FetchFailure(502, `${request.url.href} redirected more than ${this.settings.maxRedirects} times; the redirect hop limit is ${this.settings.maxRedirects}`);
        }
        url = nextHop(url, Array.isArray(location) ? location[0] : location);
      }
    } catch (err) {
      if (timeout.signal.aborted) {
        throw new FetchFailure(504, `Fetching ${request.url.href} took longer than the ${formatDuration(this.settings.timeoutMs)} limit`);
      }
      throw describeFailure(err, request);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.close()));
  }

  private async exchange(url: URL, request: PageRequest, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    const budget = Math.max(1, request.deadline - Date.now());
    return this.agentFor(request).request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: {
        'user-agent': this.settings.userAgent,
        accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
        'accept-language': 'en;q=1.0, *;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
      },
      signal,
      headersTimeout: budget,
      bodyTimeout: budget,
    });
  }

  private agentFor(request: PageRequest): Agent {
    const key = `${request.allowInsecureSsl ? 'insecure' : 'verified'}/${request.useProxy ? 'proxy' : 'direct'}`;
    let agent = this.agents.get(key);
    if (!agent) {
      agent = new Agent({
        connect: guardedConnector({
          policy: this.policy,
          resolve: this.resolve,
          proxy: request.useProxy ? this.settings.proxyUrl : undefined,
          rejectUnauthorized: !request.allowInsecureSsl,
          connectTimeoutMs: Math.min(15_000, this.settings.timeoutMs),
        }),
        keepAliveTimeout: 4_000,
        connections: 32,
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** The body, decompressed, refused past the cap whether the cap is hit on the wire or after decoding. */
  private async readBody(response: Dispatcher.ResponseData, url: URL): Promise<Buffer> {
    const cap = this.settings.maxBodyBytes;
    const tooLarge = (): FetchFailure =>
      new FetchFailure(502, `The response of ${url.href} is larger than the ${formatBytes(cap)} limit`);
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > cap) {
      response.body.destroy();
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > cap) {
        response.body.destroy();
        throw tooLarge();
      }
      chunks.push(chunk);
    }
    const raw = Buffer.concat(chunks, size);
    // Content-Encoding lists the codings in the order they were applied: undone last first.
    const encodings = String(response.headers['content-encoding'] ?? '')
      .split(',')
      .map((coding) => coding.trim().toLowerCase())
      .filter((coding) => coding !== '' && coding !== 'identity');
    // A coding this does not know: the body as sent (its content type says what it is).
    if (encodings.length === 0 || raw.length === 0 || !encodings.every(isKnownCoding)) return raw;
    if (encodings.length > MAX_CODINGS) {
      throw new FetchFailure(502, `The response of ${url.href} is declared ${encodings.join(', ')}-encoded; at most ${MAX_CODINGS} content codings are undone`);
    }
    let body: Buffer = raw;
    for (const coding of encodings.reverse()) {
      try {
        body = await decode(coding, body, { maxOutputLength: cap + 1 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw tooLarge();
        throw new FetchFailure(502, `The response of ${url.href} is declared ${coding}-encoded but does not decode (${(err as Error).message})`);
      }
      if (body.length > cap) throw tooLarge();
    }
    return body;
  }
}

/** Content codings undone in one response: more is no page a server sends. */
const MAX_CODINGS = 3;
const KNOWN_CODINGS = ['gzip', 'x-gzip', 'br', 'deflate'] as const;
const isKnownCoding = (coding: string): coding is (typeof KNOWN_CODINGS)[number] => (KNOWN_CODINGS as readonly string[]).includes(coding);

async function decode(coding: (typeof KNOWN_CODINGS)[number], data: Buffer, limit: { maxOutputLength: number }): Promise<Buffer> {
  if (coding === 'br') return brotliAsync(data, limit);
  if (coding === 'deflate') {
    // Servers send "deflate" both as zlib (the standard) and as raw deflate.
    try {
      return await inflateAsync(data, limit);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw err;
      return inflateRawAsync(data, limit);
    }
  }
  return gunzipAsync(data, limit);
}

function nextHop(current: URL, location: string): URL {
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    throw new FetchFailure(502, `${current.href} redirected to an invalid location "${location.slice(0, 200)}"`);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new FetchFailure(502, `${current.href} redirected to ${next.protocol} URL; only http and https are fetched`);
  }
  return next;
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(name === 'set-cookie' ? '\n' : ', ') : value;
  }
  return out;
}

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(?:GET|VERIFY)|HOSTNAME|ALTNAME/i;

function describeFailure(err: unknown, request: PageRequest): FetchFailure {
  if (err instanceof FetchFailure) return err;
  const host = request.url.host;
  const cause = (err as { cause?: unknown }).cause;
  const error = (err instanceof ConnectRefusedError ? err : cause instanceof ConnectRefusedError ? cause : err) as NodeJS.ErrnoException;
  if (error instanceof ConnectRefusedError) {
    if (error.reason === 'address') return new FetchFailure(400, `Refused to fetch ${request.url.href}: ${error.message}`);
    return new FetchFailure(502, error.message);
  }
  const code = error.code ?? '';
  if (TLS_CODE.test(code) || TLS_CODE.test(error.message ?? '')) {
    return new FetchFailure(502, `TLS verification failed for ${host}: ${error.message} (${code}); set allowInsecureSsl to skip certificate checks`);
  }
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    return new FetchFailure(504, `${host} did not answer within the time limit`);
  }
  if (error instanceof undiciErrors.SocketError || /ECONNRESET|EPIPE|ECONNREFUSED|EHOSTUNREACH|ENETUNREACH/.test(code)) {
    return new FetchFailure(502, `The connection to ${host} failed: ${error.message}`);
  }
  if (error instanceof undiciErrors.UndiciError) return new FetchFailure(502, `The response of ${host} could not be read: ${error.message}`);
  return new FetchFailure(502, `Fetching ${request.url.href} failed: ${error.message ?? String(err)}`);
}
