// Writes kubeconform's JSON Schemas from a live API server's OpenAPI v2 document and from our CRD
// files: one standalone file per kind (every $ref inlined), strict (objects refuse unknown fields,
// as `kubectl apply` does). Named for kubeconform's -schema-location
// "<dir>/{{ .Group }}_{{ .ResourceAPIVersion }}_{{ .ResourceKind }}.json" (core kinds: "v1_v1_<kind>").
// Run: node kube-schemas.mjs <openapi-v2.json> <crds-dir> <out-dir>
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

type Schema = Record<string, unknown>;
interface Gvk {
  group: string;
  version: string;
  kind: string;
}

const [openapiPath, crdsDir, outDir] = process.argv.slice(2);
if (!openapiPath || !crdsDir || !outDir) throw new Error('usage: kube-schemas <openapi-v2.json> <crds-dir> <out-dir>');

const fileName = ({ group, version, kind }: Gvk): string => `${group || version}_${version}_${kind}.json`.toLowerCase();

/** Quantities and int-or-string fields are strings in OpenAPI, but manifests write numbers too. */
function numberOrString(schema: Schema): Schema {
  const { type: _type, format: _format, ...rest } = schema;
  return { ...rest, oneOf: [{ type: 'string' }, { type: 'number' }] };
}

/** Objects with known properties refuse others, unless the schema keeps unknown fields. */
function strict(schema: Schema): Schema {
  const out: Schema = { ...schema };
  if (out.properties && out.additionalProperties === undefined && !out['x-kubernetes-preserve-unknown-fields']) out.additionalProperties = false;
  return out;
}

function inline(definitions: Record<string, Schema>, schema: unknown, stack: string[]): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inline(definitions, item, stack));
  if (!schema || typeof schema !== 'object') return schema;
  const node = schema as Schema;
  if (typeof node.$ref === 'string') {
    const name = node.$ref.replace('#/definitions/', '');
    // Recursive types (JSONSchemaProps of a CRD) end in "anything" rather than loop.
    if (stack.includes(name)) return {};
    const target = definitions[name];
    if (!target) throw new Error(`unresolved $ref ${node.$ref}`);
    const { $ref: _ref, ...siblings } = node;
    return { ...(inline(definitions, target, [...stack, name]) as Schema), ...siblings };
  }
  let out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === 'properties' && value && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value as Schema).map(([prop, sub]) => [prop, inline(definitions, sub, stack)]))
      : inline(definitions, value, stack);
  }
  if (out.format === 'int-or-string' || (out.type === 'string' && stack.at(-1) === 'io.k8s.apimachinery.pkg.api.resource.Quantity')) out = numberOrString(out);
  return strict(out);
}

const written: string[] = [];
function write(gvk: Gvk, schema: unknown): void {
  const name = fileName(gvk);
  writeFileSync(join(outDir, name), JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', ...(schema as Schema) }));
  written.push(name);
}

mkdirSync(outDir, { recursive: true });
const openapi = JSON.parse(readFileSync(openapiPath, 'utf8')) as { definitions: Record<string, Schema> };
for (const [name, definition] of Object.entries(openapi.definitions)) {
  const gvks = definition['x-kubernetes-group-version-kind'] as Gvk[] | undefined;
  // DeleteOptions, WatchEvent and the like name many kinds: they are never manifests.
  if (!gvks || gvks.length !== 1) continue;
  write(gvks[0], inline(openapi.definitions, definition, [name]));
}

// Our CRDs from their files (what the chart installs), not as the server republished them.
for (const file of readdirSync(crdsDir).filter((f) => f.endsWith('.yaml')).sort()) {
  for (const doc of parseAllDocuments(readFileSync(join(crdsDir, file), 'utf8'))) {
    const crd = doc.toJSON() as { spec: { group: string; names: { kind: string }; versions: { name: string; schema: { openAPIV3Schema: Schema } }[] } };
    for (const version of crd.spec.versions) {
      const body = strictDeep(version.schema.openAPIV3Schema) as Schema;
      const properties = { ...(body.properties as Schema), apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: metadataSchema() };
      write({ group: crd.spec.group, version: version.name, kind: crd.spec.names.kind }, { ...body, properties, additionalProperties: false });
    }
  }
}
console.log(`kube-schemas: wrote ${written.length} schemas to ${outDir}`);

function strictDeep(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictDeep);
  if (!schema || typeof schema !== 'object') return schema;
  const out = Object.fromEntries(Object.entries(schema as Schema).map(([key, value]) => [key, key === 'properties' ? Object.fromEntries(Object.entries(value as Schema).map(([p, s]) => [p, strictDeep(s)])) : strictDeep(value)]));
  if (out['x-kubernetes-int-or-string']) return numberOrString(out);
  return strict(out);
}

/** ObjectMeta as the server's own OpenAPI has it. */
function metadataSchema(): unknown {
  const name = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
  return inline(openapi.definitions, { $ref: `#/definitions/${name}` }, []);
}
