// Builds the Koa façade from route definitions. Every route gets the same pipeline:
// request id → error body → auth → the project's request rate → validation → handler; a route's own
// `authorize` runs before its body is read.
import Koa from 'koa';
import Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import type { ApiDeps } from './deps.js';
import type { JsonSchema, RouteDefinition, RouteState } from './route.js';
import { ApiKeyAuthenticator, requireMetricsToken } from './auth.js';
import { ProjectRequestRate } from './request-rate.js';
import { HttpError, errorBody, toHttpError } from './http-error.js';
import { readJsonBody } from './body.js';
import { drainRefusedBody, refusedBodyBound } from './refused-body.js';
import { bodyNotAskedFor } from './expect-continue.js';
import { compileSchema } from './validation.js';
import { describeErrors } from '../schemas/schema-errors.js';
import { buildOpenApiDocument } from './openapi.js';
import { mountConsole } from './console.js';

const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  routes: RouteDefinition[];
  /** Answers /readyz: true once controllers have synced and the node agent runs. */
  isReady?: () => boolean;
}

export function createApp(deps: ApiDeps, options: AppOptions): Koa<RouteState> {
  const app = new Koa<RouteState>();
  // Behind a TLS-terminating proxy the absolute URLs routes return (live view, recordings) take its scheme and host.
  app.proxy = deps.settings.trustProxy;
  const auth = new ApiKeyAuthenticator(deps.settings.apiKeys);
  const rate = new ProjectRequestRate(deps.settings.apiRatePerProject);
  const refusedBodyBytes = refusedBodyBound(deps.settings.maxArchiveBytes);
  const router = new Router<RouteState>();
  // What fails past the error middleware (a response stream broken by its client, a request the HTTP
  // parser refused mid-body) goes to the log, not as Koa's bare stack on stderr.
  app.on('error', (err: Error) => deps.log.warn({ err }, 'request failed outside its route'));

  app.use(async (ctx, next) => {
    ctx.state.requestId = randomUUID();
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new HttpError(404, `No route for ${ctx.method} ${ctx.path}`);
      }
    } catch (err) {
      // A client gone mid-body (a pod torn down during its upload) is no server fault: nobody reads the answer, and no stack goes to the log.
      const known = toHttpError(err) ?? (ctx.req.destroyed && !ctx.req.complete ? new HttpError(400, 'The request was broken off before its body ended') : undefined);
      if (!known) deps.log.error({ err, path: ctx.path, requestId: ctx.state.requestId }, 'unhandled error');
      const status = known ? known.status : 500;
      const message = known ? known.message : `Internal error (request ${ctx.state.requestId}); the server log has details`;
      ctx.status = status;
      ctx.body = errorBody(status, message, known ? known.extra : {});
      if (known) ctx.set(known.headers);
      // A body the client was never asked for (Expect: 100-continue) is not coming: the connection closes after the answer.
      if (!ctx.req.complete && !bodyNotAskedFor(ctx.res)) drainRefusedBody(ctx.req, refusedBodyBytes);
    }
  });

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', (ctx) => {
    const ready = options.isReady?.() ?? true;
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'starting' };
  });
  router.get('/metrics', async (ctx) => {
    requireMetricsToken(ctx.headers, deps.settings.metricsToken);
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });
  const openapi = buildOpenApiDocument(options.routes);
  router.get('/v1/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  mountConsole(router);

  for (const route of options.routes) {
    router[route.method](route.path, async (ctx) => {
      if (route.auth !== false) {
        ctx.state.project = auth.projectFor(ctx.headers);
        rate.take(ctx.state.project);
      }
      const params = { ...ctx.params } as Record<string, unknown>;
      const query = { ...ctx.query } as Record<string, unknown>;
      validate('path', route.request?.params, params);
      // Before the body: a caller that is not allowed never makes the server read (or buffer) it.
      const caller: unknown = route.authorize ? await route.authorize(ctx, params, deps) : undefined;
      validate('query', route.request?.query, query);
      let body: unknown;
      if (route.request?.body) {
        const limit = route.request.bodyLimit;
        body = await readJsonBody(ctx, typeof limit === 'function' ? limit(caller) : limit ?? DEFAULT_BODY_LIMIT);
        if (body === undefined) body = {};
        validate('body', route.request.body, body);
      }
      await route.handle(ctx, { params, query, body, caller }, deps);
    });
  }

  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () => new HttpError(405, 'Method not allowed on this path'),
      // WebDAV's and other methods no route takes (PROPFIND, TRACE): the caller's mistake, not a 500 in the log.
      notImplemented: () => new HttpError(501, 'Method not implemented: the API takes GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS'),
    }),
  );
  return app;
}

function validate(where: string, schema: JsonSchema | undefined, value: unknown): void {
  if (!schema) return;
  const fn = compileSchema(schema);
  if (!fn(value)) throw new HttpError(400, `Invalid request: ${describeErrors(where, fn.errors)}`);
}
