// One route = one file exporting a RouteDefinition: declarative metadata (also the OpenAPI
// document) plus a handler. Params, query and body are validated against their schemas first.
import type { ParameterizedContext } from 'koa';
import type { JSONSchemaType } from 'ajv';
import type { ApiDeps } from './deps.js';

export type JsonSchema = Record<string, unknown> | JSONSchemaType<unknown>;

export interface RouteState {
  /** The project (namespace) the caller's API key reaches. */
  project: string;
  /** A request id, echoed in logs. */
  requestId: string;
}

export interface RouteInput<P = Record<string, string>, Q = Record<string, unknown>, B = unknown, C = unknown> {
  params: P;
  query: Q;
  body: B;
  /** What the route's `authorize` returned (undefined for API-key routes). */
  caller: C;
}

export type RouteContext = ParameterizedContext<RouteState>;

export interface RouteDefinition<P = any, Q = any, B = any, C = any> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Koa-router path, e.g. `/v1/functions/:id`. */
  path: string;
  operationId: string;
  summary: string;
  tags?: string[];
  /** Defaults to true: every API route needs the key. */
  auth?: boolean;
  /**
   * Authenticates callers without an API key (pods). Runs once the path is validated and before
   * any byte of the body is read, so an unauthenticated request costs no body memory.
   */
  authorize?(ctx: RouteContext, params: P, deps: ApiDeps): Promise<C>;
  request?: {
    params?: JsonSchema;
    query?: JsonSchema;
    /** JSON body schema. Multipart routes read the body themselves and leave this out. */
    body?: JsonSchema;
    /** Largest accepted JSON body in bytes (default 1 MiB), or a function of the authorized caller; larger is a 413. */
    bodyLimit?: number | ((caller: C) => number);
    /** Documents a JSON body the handler validates itself (so its errors can carry extra fields). */
    documentedBody?: JsonSchema;
  };
  responses: Record<number, { description: string; schema?: JsonSchema }>;
  handle(ctx: RouteContext, input: RouteInput<P, Q, B, C>, deps: ApiDeps): Promise<void> | void;
}

/** Helper that keeps the generic types of a route definition inferred at its declaration. */
export const defineRoute = <P, Q, B, C = undefined>(route: RouteDefinition<P, Q, B, C>): RouteDefinition<P, Q, B, C> => route;
