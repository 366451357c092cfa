// POST /v1/fetch behind the route: admission (format enabled → quota → concurrency), the fetch,
// and the presentation of the body in the requested format.
import { decodeBody } from './body-decoding.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import { ConversionMemoryError, ConversionPool, ConversionTimeoutError } from './conversion-pool.js';
import type { ConversionResult } from './convert/convert-document.js';
import { FetchFailure } from './fetch-failure.js';
import { parseFetchRequest, type FetchRequest } from './fetch-request.js';
import { PageFetcher, type FetchedPage } from './page-fetcher.js';
import { formatDuration } from './units.js';
import { QuotaLedger } from './quota-ledger.js';
import type { Resolver } from './guarded-connector.js';
import type { FetchSettings } from './settings.js';

export interface FetchResult {
  id: string;
  statusCode: number;
  headers: Record<string, string>;
  content: unknown;
  contentType: string;
  encoding: 'utf-8' | 'base64';
}

export interface FetchServiceOptions {
  /** DNS resolution (tests substitute one to show that the checked address is the one connected to). */
  resolve?: Resolver;
}

export class FetchService {
  private readonly fetcher: PageFetcher;
  private readonly pool: ConversionPool;
  private readonly quotas: QuotaLedger;
  private readonly gate: ConcurrencyGate;

  constructor(
    readonly settings: FetchSettings,
    options: FetchServiceOptions = {},
  ) {
    this.fetcher = new PageFetcher(settings, options.resolve);
    this.pool = new ConversionPool({ size: settings.workers, heapMb: settings.workerHeapMb });
    this.quotas = new QuotaLedger(settings.quotas, settings.quotaWindowMs);
    this.gate = new ConcurrencyGate(settings.maxConcurrentPerProject, settings.maxConcurrentTotal);
  }

  /** Validates the body; the format is known (for metrics) even when the rest fails. */
  parse(body: unknown): FetchRequest {
    return parseFetchRequest(body, this.settings);
  }

  async fetch(project: string, request: FetchRequest, id: string): Promise<FetchResult> {
    const enabled = this.settings.formats.get(project) ?? this.settings.formats.get('*');
    if (!enabled?.has(request.format)) {
      throw new FetchFailure(403, `Format ${request.format} is not enabled for project ${project}; enabled: ${[...(enabled ?? [])].join(', ') || 'none'}`);
    }
    const quota = this.quotas.reserve(project, request.format);
    if (!quota.ok) {
      throw new FetchFailure(
        402,
        `The ${request.format} quota of project ${project} (${quota.limit} per ${formatDuration(this.settings.quotaWindowMs)}) is used up; it resets at ${new Date(quota.resetsAt).toISOString()}`,
      );
    }
    const slot = this.gate.tryEnter(project);
    if (!('release' in slot)) {
      quota.reservation.refund();
      throw new FetchFailure(
        429,
        slot.limit === 'project'
          ? `Too many concurrent fetches for project ${project} (limit ${slot.max}); retry when one finishes`
          : `Too many concurrent fetches on this server (limit ${slot.max}); retry shortly`,
      );
    }
    try {
      const deadline = Date.now() + this.settings.timeoutMs;
      const page = await this.fetcher.fetch({
        url: request.url,
        allowRedirects: request.allowRedirects,
        allowInsecureSsl: request.allowInsecureSsl,
        useProxy: request.proxies,
        deadline,
      });
      return await this.present(project, page, request, id, deadline);
    } catch (err) {
      quota.reservation.refund();
      throw err;
    } finally {
      slot.release();
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.close(), this.fetcher.close()]);
  }

  private async present(project: string, page: FetchedPage, request: FetchRequest, id: string, deadline: number): Promise<FetchResult> {
    const decoded = decodeBody(page.body, page.headers['content-type']);
    const base = { id, statusCode: page.status, headers: page.headers, contentType: decoded.mimeType };
    if (request.format === 'raw') {
      return decoded.text !== undefined
        ? { ...base, content: decoded.text, encoding: 'utf-8' }
        : { ...base, content: page.body.toString('base64'), encoding: 'base64' };
    }
    if (decoded.text === undefined || decoded.mimeType === 'image/svg+xml') {
      throw new FetchFailure(400, `The response is ${decoded.mimeType}, which cannot be converted to ${request.format}; use format raw to get it as base64`);
    }
    if (deadline <= Date.now()) throw new FetchFailure(504, `Fetching ${request.url.href} used up the ${formatDuration(this.settings.timeoutMs)} limit before conversion`);
    let result: ConversionResult;
    try {
      result = await this.pool.run(
        { format: request.format, body: decoded.text, contentType: decoded.mimeType, url: page.url, schema: request.schema },
        { maxRunMs: this.settings.conversionTimeoutMs, deadline },
        project,
      );
    } catch (err) {
      if (err instanceof ConversionTimeoutError) {
        throw new FetchFailure(504, `Converting ${request.url.href} to ${request.format} took longer than ${formatDuration(err.limitMs)}`);
      }
      if (err instanceof ConversionMemoryError) {
        throw new FetchFailure(502, `The page at ${request.url.href} is too large to convert to ${request.format}: it needs more than the ${err.heapMb} MiB a conversion may use (BROWSERFN_FETCH_WORKER_HEAP_MB); use format raw for its body`);
      }
      throw err;
    }
    const { content, validationErrors } = result;
    if (validationErrors) {
      const problems = validationErrors.map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
      throw new FetchFailure(400, `The page does not satisfy the schema: ${problems.join('; ')}`, { content, validationErrors, pageStatusCode: page.status });
    }
    return { ...base, content, encoding: 'utf-8' };
  }
}
