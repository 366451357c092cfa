// The CustomResourceDefinitions of browserfn.dev/v1alpha1, made from the JSON Schemas in
// resource-schemas.ts: the API server validates Function, Build, Invocation and BrowserPool objects with the
// same rules as ajv does. scripts/generate-crds.ts writes them to crds/.
import { stringify } from 'yaml';
import { API_GROUP, API_VERSION, Kinds } from '../cluster/objects.js';
import { resourceSchemas, type JsonSchema, type ResourceKindName } from './resource-schemas.js';

/** An OpenAPI v3 schema in the structural form the API server requires for CRDs. */
export interface StructuralSchema {
  type?: string;
  description?: string;
  properties?: Record<string, StructuralSchema>;
  required?: string[];
  items?: StructuralSchema;
  enum?: string[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  'x-kubernetes-preserve-unknown-fields'?: true;
}

interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date';
  jsonPath: string;
  description: string;
  priority?: number;
}

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    scope: 'Namespaced';
    names: { plural: string; singular: string; kind: string; listKind: string; shortNames: string[]; categories: string[] };
    versions: {
      name: string;
      served: true;
      storage: true;
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: PrinterColumn[];
      schema: { openAPIV3Schema: StructuralSchema };
    }[];
  };
}

const COPIED_KEYWORDS = ['description', 'enum', 'pattern', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'] as const;

/**
 * JSON Schema → structural schema. Closed objects (`additionalProperties: false`) lose the keyword:
 * the API server prunes unknown fields instead of refusing them. Free-form JSON (an object with
 * `additionalProperties: true`, or a schema without a type) keeps its unknown fields.
 */
export function toStructural(schema: JsonSchema): StructuralSchema {
  const out: StructuralSchema = {};
  if (schema.type) out.type = schema.type;
  for (const keyword of COPIED_KEYWORDS) {
    if (schema[keyword] !== undefined) (out as Record<string, unknown>)[keyword] = schema[keyword];
  }
  if (schema.required?.length) out.required = [...schema.required];
  if (schema.properties) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, toStructural(property)]));
  }
  if (schema.items) out.items = toStructural(schema.items);
  const freeForm = schema.type === undefined || (schema.type === 'object' && schema.additionalProperties === true && !schema.properties);
  if (freeForm) out['x-kubernetes-preserve-unknown-fields'] = true;
  return out;
}

interface KindDefinition {
  singular: string;
  shortNames: string[];
  description: string;
  printerColumns: PrinterColumn[];
}

const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since creation.' };

const DEFINITIONS: Record<ResourceKindName, KindDefinition> = {
  Function: {
    singular: 'function',
    shortNames: ['bfn'],
    description: 'A browser Function: a TypeScript handler published with `browserfn publish` and invoked over HTTP, each run in a fresh headless Chromium session. metadata.uid is the Function ID.',
    printerColumns: [
      { name: 'Function', type: 'string', jsonPath: '.spec.name', description: 'The name given to defineFn.' },
      { name: 'Version', type: 'integer', jsonPath: '.spec.version.number', description: 'The current version number.' },
      { name: 'Build', type: 'string', jsonPath: '.spec.version.buildName', description: 'The Build that produced the current version.', priority: 1 },
      AGE,
    ],
  },
  Build: {
    singular: 'build',
    shortNames: ['bfnbuild'],
    description: 'One publish of a project: its archive is bundled in a build pod and every Function the entrypoint defines gets a new version.',
    printerColumns: [
      { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'PENDING, RUNNING, COMPLETED or FAILED.' },
      { name: 'Entrypoint', type: 'string', jsonPath: '.spec.entrypoint', description: 'The entry file.' },
      { name: 'Cause', type: 'string', jsonPath: '.status.cause.code', description: 'Why the build failed.' },
      AGE,
    ],
  },
  Invocation: {
    singular: 'invocation',
    shortNames: ['bfninv'],
    description: 'One invocation of a Function version: the controller runs it in its own browser pod and records the outcome.',
    printerColumns: [
      { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'PENDING, RUNNING, COMPLETED or FAILED.' },
      { name: 'Function', type: 'string', jsonPath: '.spec.functionName', description: 'The invoked Function.' },
      { name: 'Cause', type: 'string', jsonPath: '.status.cause.code', description: 'Why the invocation failed.' },
      { name: 'Session', type: 'string', jsonPath: '.spec.sessionId', description: 'The browser session ID.', priority: 1 },
      { name: 'Pod', type: 'string', jsonPath: '.status.podName', description: 'The browser pod.', priority: 1 },
      AGE,
    ],
  },
  BrowserPool: {
    singular: 'browserpool',
    shortNames: ['bfnpool'],
    description: 'Pre-started browser pods for the invocations of this namespace whose browser launches the pool\'s way; each member serves one invocation, then it is replaced. Scaled from demand between minIdle and maxIdle, to zero after idleSeconds without use.',
    printerColumns: [
      { name: 'Min', type: 'integer', jsonPath: '.spec.minIdle', description: 'Idle members kept while in use.' },
      { name: 'Max', type: 'integer', jsonPath: '.spec.maxIdle', description: 'Most idle members.' },
      { name: 'Desired', type: 'integer', jsonPath: '.status.desired', description: 'Idle members aimed for now.' },
      { name: 'Ready', type: 'integer', jsonPath: '.status.ready', description: 'Idle members ready to be claimed.' },
      { name: 'Claimed', type: 'integer', jsonPath: '.status.claimed', description: 'Members serving an invocation.' },
      AGE,
    ],
  },
};

export const CRD_CATEGORY = 'browserfn';

export function customResourceDefinition(kind: ResourceKindName): CustomResourceDefinition {
  const type = Kinds[kind];
  const definition = DEFINITIONS[kind];
  const { spec, status } = resourceSchemas[kind];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${type.plural}.${API_GROUP}`, labels: { 'app.kubernetes.io/part-of': 'browserfn' } },
    spec: {
      group: API_GROUP,
      scope: 'Namespaced',
      names: {
        plural: type.plural,
        singular: definition.singular,
        kind,
        listKind: `${kind}List`,
        shortNames: definition.shortNames,
        categories: [CRD_CATEGORY],
      },
      versions: [
        {
          name: API_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: definition.printerColumns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: definition.description,
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string', description: `The API version of this object: ${API_GROUP}/${API_VERSION}.` },
                kind: { type: 'string', description: `The kind of this object: ${kind}.` },
                metadata: { type: 'object' },
                spec: toStructural(spec),
                status: toStructural(status),
              },
            },
          },
        },
      ],
    },
  };
}

export const CRD_KINDS: readonly ResourceKindName[] = ['Function', 'Build', 'Invocation', 'BrowserPool'];

/** The files of crds/, by file name: what scripts/generate-crds.ts writes and a test compares. */
export function renderCrdFiles(): Map<string, string> {
  const header = '# Generated by scripts/generate-crds.ts from src/schemas/resource-schemas.ts. Do not edit.\n';
  return new Map(
    CRD_KINDS.map((kind) => {
      const crd = customResourceDefinition(kind);
      return [`${crd.metadata.name}.yaml`, header + stringify(crd, { lineWidth: 0 })];
    }),
  );
}
