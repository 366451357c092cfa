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

export interface RouteInput<P = Record<string, string>, Q = Record<string, unknown>, B = unknown> {
  params: P;
  query: Q;
  body: B;
}

export type RouteContext = ParameterizedContext<RouteState>;

export interface RouteDefinition<P = any, Q = any, B = any> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Koa-router path, e.g. `/v1/functions/:id`. */
  path: string;
  operationId: string;
  summary: string;
  tags?: string[];
  /** Defaults to true: every API route needs the key. */
  auth?: boolean;
  request?: {
    params?: JsonSchema;
    query?: JsonSchema;
    /** JSON body schema. Multipart routes read the body themselves and leave this out. */
    body?: JsonSchema;
    /** Largest accepted JSON body in bytes (default 1 MiB). */
    bodyLimit?: number;
    /** Documents a JSON body the handler validates itself (so its errors can carry extra fields). */
    documentedBody?: JsonSchema;
  };
  responses: Record<number, { description: string; schema?: JsonSchema }>;
  handle(ctx: RouteContext, input: RouteInput<P, Q, B>, deps: ApiDeps): Promise<void> | void;
}

/** Helper that keeps the generic types of a route definition inferred at its declaration. */
export const defineRoute = <P, Q, B>(route: RouteDefinition<P, Q, B>): RouteDefinition<P, Q, B> => route;
