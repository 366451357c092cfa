import type { RouteDefinition } from './route.js';

/** The OpenAPI 3.1 document, produced from the same route definitions the server validates with. */
export function buildOpenApiDocument(routes: RouteDefinition[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    // `:name` and the wildcard `*name` (the rest of the path) both become `{name}`.
    const path = route.path.replace(/[:*]([A-Za-z_]+)/g, '{$1}');
    const params = (route.request?.params as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
    const query = (route.request?.query as { properties?: Record<string, unknown>; required?: string[] } | undefined) ?? {};
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      tags: route.tags,
      security: route.auth === false ? [] : [{ apiKey: [] }],
      parameters: [
        ...Object.entries(params).map(([name, schema]) => ({ name, in: 'path', required: true, schema })),
        ...Object.entries(query.properties ?? {}).map(([name, schema]) => ({
          name,
          in: 'query',
          required: (query.required ?? []).includes(name),
          schema,
        })),
      ],
      ...(route.request?.body ?? route.request?.documentedBody
        ? { requestBody: { required: true, content: { 'application/json': { schema: route.request?.body ?? route.request?.documentedBody } } } }
        : {}),
      responses: Object.fromEntries(
        Object.entries(route.responses).map(([status, r]) => [
          status,
          { description: r.description, ...(r.schema ? { content: { 'application/json': { schema: r.schema } } } : {}) },
        ]),
      ),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'browserfn', version: 'v1' },
    components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-SVC-API-Key' } } },
    paths,
  };
}
