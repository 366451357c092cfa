// The dev server's HTTP routes, on the wire of the hosted `bb dev` server (@browserbasehq/sdk-functions
// 1.0.1 cli.js): GET / → {ok:true}; POST /v1/functions/{name}/invoke with {params} → 200 with the
// handler's result, 500 {error:{message,type,stackTrace}} when it failed; errors {error, message};
// CORS open, as there. No API key: it binds loopback only.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '../../domain/errors.js';
import type { InvokeRequest } from '../../functions/invoke.js';
import type { InvocationObject } from '../../schemas/resources.js';
import { NotReadyError } from './dev-invoker.js';

/** As the façade's invoke route. */
const MAX_BODY_BYTES = 256 * 1024;
const INVOKE_PATH = /^\/v1\/functions\/([^/]+)\/invoke$/;
const RUNTIME_API_PREFIX = '/2018-06-01/runtime/';

/** The ended invocation, with its handler's stack when it failed; `abandoned` fires when the caller goes away. */
export type InvokeByName = (name: string, request: InvokeRequest, abandoned: AbortSignal) => Promise<{ invocation: InvocationObject; stackTrace: string[] }>;

export function devRequestHandler(invoke: InvokeByName, onError: (err: unknown) => void) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    void handle(req, res, invoke).catch((err: unknown) => {
      const known = httpError(err);
      if (!known) onError(err);
      const [status, error, message] = known ?? [500, 'Internal Server Error', 'An internal error occurred'];
      send(res, status, { statusCode: status, error, message });
    });
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, invoke: InvokeByName): Promise<void> {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', 'Content-Type');
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (req.method === 'OPTIONS') return send(res, 200);
  if (req.method === 'GET' && path === '/') return send(res, 200, { ok: true });
  if (path.startsWith(RUNTIME_API_PREFIX)) {
    // The hosted server's runtime API, which its locally started user process polls: here the code runs in a pod, whose agent serves it.
    return send(res, 404, { statusCode: 404, error: 'Not found', message: 'browserfn dev runs the entry itself, in a sandboxed browser pod with its own runtime API: do not start the entry yourself' });
  }
  const match = INVOKE_PATH.exec(path);
  if (req.method !== 'POST' || !match) return send(res, 404, { statusCode: 404, error: 'Not found', message: `No route ${req.method} ${path}: POST /v1/functions/{name}/invoke` });

  const body = parseBody(await readBody(req));
  // The path names the Function, as with the hosted server (a body.functionName is not needed then).
  const name = decodeURIComponent(match[1]);
  const abandoned = new AbortController();
  res.once('close', () => res.writableFinished || abandoned.abort());
  const request = { ...(body.params !== undefined ? { params: body.params } : {}), ...(body.sessionCreateParams !== undefined ? { sessionCreateParams: body.sessionCreateParams } : {}) };
  const { invocation: inv, stackTrace } = await invoke(name, request, abandoned.signal);
  res.setHeader('x-browserfn-invocation-id', inv.metadata.name);
  res.setHeader('x-browserfn-session-id', inv.spec.sessionId);
  const status = inv.status ?? {};
  if (status.phase === 'COMPLETED') return send(res, 200, status.results ?? {});
  const cause = status.cause ?? { code: 'INTERNAL_ERROR', message: 'The invocation failed' };
  send(res, 500, { error: { message: cause.message ?? cause.code, type: cause.code, stackTrace } });
}

interface DevInvokeBody {
  params?: Record<string, unknown>;
  sessionCreateParams?: Record<string, unknown>;
}

/** The hosted body ({functionName?, params?, context?}: the context is ours, as in production) plus our sessionCreateParams. */
function parseBody(text: string): DevInvokeBody {
  let value: unknown = {};
  try {
    if (text.trim()) value = JSON.parse(text);
  } catch {
    throw new DomainError('invalid', 'Invalid JSON body');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new DomainError('invalid', 'The body must be a JSON object: {"params": {...}}');
  const body = value as Record<string, unknown>;
  for (const field of ['params', 'sessionCreateParams'] as const) {
    const v = body[field];
    if (v !== undefined && (typeof v !== 'object' || v === null || Array.isArray(v))) throw new DomainError('invalid', `${field} must be a JSON object`);
  }
  return body as unknown as DevInvokeBody;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new DomainError('invalid', `The body is over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function httpError(err: unknown): [number, string, string] | undefined {
  if (err instanceof NotReadyError) return [503, 'Service Unavailable', err.message];
  if (!(err instanceof DomainError)) return undefined;
  switch (err.kind) {
    case 'invalid':
      return [400, 'Bad Request', err.message];
    case 'not-found':
      return [404, 'Not Found', err.message];
    case 'conflict':
      return [409, 'Conflict', err.message];
    case 'busy':
      return [429, 'Too Many Requests', err.message];
  }
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (res.headersSent) return void res.end();
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}
