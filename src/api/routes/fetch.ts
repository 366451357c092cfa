// POST /v1/fetch (docs/fetch.md): a page as raw body, markdown or schema-shaped JSON.
// The body is validated inside the handler so that every error, 400s included, carries the fetch id.
import { defineRoute, type RouteDefinition } from '../route.js';
import { HttpError } from '../http-error.js';
import { readJsonBody } from '../body.js';
import type { FetchService } from '../../fetch/fetch-service.js';
import { FetchFailure } from '../../fetch/fetch-failure.js';
import { FETCH_FORMATS } from '../../fetch/settings.js';

const BODY_LIMIT = 1024 * 1024;

export interface FetchRoutesOptions {
  /** The fetch service to serve, made from the settings parsed at start; its owner closes it (worker threads, connections). */
  service: FetchService;
}

const fetchResultSchema = {
  type: 'object',
  required: ['id', 'statusCode', 'headers', 'content', 'contentType', 'encoding'],
  properties: {
    id: { type: 'string' },
    statusCode: { type: 'integer' },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    content: { oneOf: [{ type: 'string' }, { type: 'object' }, { type: 'array' }] },
    contentType: { type: 'string' },
    encoding: { type: 'string', enum: ['utf-8', 'base64'] },
  },
};

/** The request body as documented; the handler checks it itself so that every 400 carries the fetch id. */
const fetchRequestSchema = {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', description: 'The http(s) URL to fetch' },
    format: { enum: ['raw', 'markdown', 'json'], default: 'raw' },
    schema: { type: 'object', description: 'JSON Schema of the content (format json); properties may carry an x-extract hint' },
    allowRedirects: { type: 'boolean', default: false },
    allowInsecureSsl: { type: 'boolean', default: false },
    proxies: { type: 'boolean', default: false },
  },
};

const errorSchema = {
  type: 'object',
  required: ['statusCode', 'error', 'message', 'id'],
  properties: { statusCode: { type: 'integer' }, error: { type: 'string' }, message: { type: 'string' }, id: { type: 'string' } },
};

export function fetchRoutes({ service }: FetchRoutesOptions): RouteDefinition[] {
  const route = defineRoute({
    method: 'post',
    path: '/v1/fetch',
    operationId: 'Fetch_create',
    summary: 'Fetch a page as raw body, markdown or schema-shaped JSON',
    tags: ['Fetch'],
    request: { documentedBody: fetchRequestSchema },
    responses: {
      200: { description: 'The fetched page', schema: fetchResultSchema },
      400: { description: 'Invalid request, a refused target address, or content that cannot be converted to the format', schema: errorSchema },
      402: { description: 'The project quota for the format is used up', schema: errorSchema },
      403: { description: 'The format is not enabled for the project', schema: errorSchema },
      429: { description: 'Too many concurrent fetches', schema: errorSchema },
      502: { description: 'Upstream unreachable, DNS or TLS failure, or body over the size limit', schema: errorSchema },
      504: { description: 'Over the time limit', schema: errorSchema },
    },
    async handle(ctx, _input, deps) {
      const id = ctx.state.requestId;
      let format = 'unknown';
      try {
        let body: unknown;
        try {
          body = await readJsonBody(ctx, BODY_LIMIT);
        } catch (err) {
          if (err instanceof HttpError) throw new HttpError(err.status, err.message, { ...err.extra, id });
          throw err;
        }
        format = formatLabel(body);
        const request = service.parse(body);
        const result = await service.fetch(ctx.state.project, request, id);
        deps.metrics.fetches.inc({ format, status: '200' });
        ctx.body = result;
      } catch (err) {
        if (err instanceof FetchFailure) {
          deps.metrics.fetches.inc({ format, status: String(err.status) });
          throw new HttpError(err.status, err.message, { ...err.extra, id });
        }
        if (err instanceof HttpError) {
          deps.metrics.fetches.inc({ format, status: String(err.status) });
          throw err;
        }
        deps.metrics.fetches.inc({ format, status: '500' });
        deps.log.error({ err, fetchId: id }, 'fetch failed');
        throw new HttpError(500, `Internal error while fetching (fetch ${id}); the server log has details`, { id });
      }
    },
  });
  return [route];
}

/** The format for the metrics label: one of the known ones, or "unknown" (labels stay a bounded set). */
function formatLabel(body: unknown): string {
  const format = body && typeof body === 'object' ? ((body as Record<string, unknown>).format ?? 'raw') : undefined;
  return typeof format === 'string' && (FETCH_FORMATS as readonly string[]).includes(format) ? format : 'unknown';
}
