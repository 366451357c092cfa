// JSON Schemas for the spec and status of the browserfn.dev/v1alpha1 kinds (the TypeScript shapes
// are in resources.ts). They are the single source of the validation: ajv checks objects with them
// (resourceProblems) and src/schemas/crds.ts turns them into the CRDs' structural schemas.
import { Ajv, type ValidateFunction } from 'ajv';
import { addFormats } from './ajv-formats.js';
import { describeErrors } from './schema-errors.js';
import { MAX_FUNCTION_NAME_LENGTH } from '../sdk/function-name.js';
import { SESSION_TIMEOUT_MAX_SECONDS, SESSION_TIMEOUT_MIN_SECONDS } from './session-config.js';
import { RUNTIME_PACKAGES } from './runtime-packages.js';

export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  /** false: a closed object (the CRD prunes unknown fields instead); true: free-form JSON. */
  additionalProperties?: boolean;
  items?: JsonSchema;
  enum?: string[];
  pattern?: string;
  format?: 'date-time';
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

export type ResourceKindName = 'Function' | 'Build' | 'Invocation' | 'BrowserPool';

// Patterns are written for both engines: JavaScript (ajv) and Go RE2 (the API server).
const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const DNS_SUBDOMAIN_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
const DATA_KEY_PATTERN = '^[-._a-zA-Z0-9]+$';
// No "/", "\" or control characters anywhere, no space at either end (see sdk/function-name.ts).
const FUNCTION_NAME_PATTERN = '^[^/\\\\\\x00-\\x20\\x7f]([^/\\\\\\x00-\\x1f\\x7f]*[^/\\\\\\x00-\\x20\\x7f])?$';
const CAUSE_CODE_PATTERN = '^[A-Z][A-Z0-9_]*$';

const uuid = (description: string): JsonSchema => ({ type: 'string', pattern: UUID_PATTERN, description });
const objectName = (description: string): JsonSchema => ({ type: 'string', pattern: DNS_SUBDOMAIN_PATTERN, maxLength: 253, description });
const timestamp = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });
const freeForm = (description: string): JsonSchema => ({ type: 'object', additionalProperties: true, description });

const observedGeneration: JsonSchema = {
  type: 'integer',
  minimum: 0,
  description: 'The metadata.generation this status was computed from; behind metadata.generation while the controller catches up.',
};

const conditions: JsonSchema = {
  type: 'array',
  description: 'Latest observations of the object\'s state, one per type (for example "Succeeded").',
  items: {
    type: 'object',
    required: ['type', 'status'],
    additionalProperties: false,
    properties: {
      type: { type: 'string', minLength: 1, maxLength: 316, description: 'Condition type, in CamelCase.' },
      status: { type: 'string', enum: ['True', 'False', 'Unknown'], description: 'Whether the condition holds.' },
      reason: { type: 'string', maxLength: 1024, description: 'A CamelCase word saying why the condition last changed.' },
      message: { type: 'string', maxLength: 32768, description: 'A human-readable explanation.' },
      lastTransitionTime: timestamp('When status last changed.'),
      observedGeneration: { ...observedGeneration, description: 'The metadata.generation the condition was set for.' },
    },
  },
};

const cause: JsonSchema = {
  type: 'object',
  required: ['code'],
  additionalProperties: false,
  description: 'Why it failed: a machine-readable code and a message saying what to fix.',
  properties: {
    code: { type: 'string', pattern: CAUSE_CODE_PATTERN, maxLength: 128, description: 'UPPER_SNAKE_CASE failure code, e.g. TIMED_OUT or BUILD_FAILED.' },
    message: { type: 'string', maxLength: 32768, description: 'What happened and what to fix.' },
  },
};

const phase = (description: string): JsonSchema => ({ type: 'string', enum: ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED'], description });

const functionVersion: JsonSchema = {
  type: 'object',
  required: ['id', 'number', 'bundleConfigMap', 'createdAt'],
  additionalProperties: false,
  description: 'The current published version: what an invocation runs.',
  properties: {
    id: uuid('Version ID (a UUID), stable for the life of the version.'),
    number: { type: 'integer', minimum: 1, description: 'Version number: 1, 2, 3… per Function.' },
    buildName: objectName('The Build (in this namespace) that produced the version; absent for hand-written manifests.'),
    bundleConfigMap: objectName('Manifest ConfigMap (in this namespace, artifact-<sha256>) of the built artifact: its size, sha256 and content-addressed chunk ConfigMaps.'),
    sessionConfig: freeForm('Browser session settings from defineFn (browserSettings, proxies, timeout, …); invocations deep-merge their sessionCreateParams over it.'),
    parametersSchema: freeForm('JSON Schema that invocation params must satisfy.'),
    runtimePackages: runtimePackageList('The runtime packages the version\'s code imports (absent: not recorded, any of them).'),
    createdAt: timestamp('When the version was published (RFC 3339).'),
  },
};

export const functionSpecSchema: JsonSchema = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  description: 'A browser Function of this project (namespace). Its metadata.uid is the Function ID.',
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_FUNCTION_NAME_LENGTH,
      pattern: FUNCTION_NAME_PATTERN,
      description: `The name given to defineFn; unique in the project. 1 to ${MAX_FUNCTION_NAME_LENGTH} characters, no "/", "\\" or control characters.`,
    },
    version: functionVersion,
    source: {
      type: 'object',
      additionalProperties: false,
      description: 'Handler source for hand-written manifests, inline or in a ConfigMap; the controller builds it.',
      properties: {
        inline: { type: 'string', minLength: 1, maxLength: 1048576, description: 'The handler module source (TypeScript or JavaScript).' },
        configMapRef: {
          type: 'object',
          required: ['name', 'key'],
          additionalProperties: false,
          description: 'A ConfigMap in this namespace holding the handler source.',
          properties: {
            name: objectName('ConfigMap name.'),
            key: { type: 'string', pattern: DATA_KEY_PATTERN, maxLength: 253, description: 'Key of the source in the ConfigMap\'s data.' },
          },
        },
      },
    },
    secrets: {
      type: 'array',
      // Enough for the spec's pages of 1000; 5000 IDs keep the object far below etcd's 1.5 MB.
      maxItems: 5000,
      description: 'IDs of the project secrets attached to this Function; their values reach its invocations as ctx.secrets.',
      items: { type: 'string', minLength: 1, maxLength: 253 },
    },
  },
};

export const functionStatusSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'What the controller last observed about the Function.',
  properties: {
    observedGeneration,
    conditions,
    currentVersion: { type: 'integer', minimum: 1, description: 'The version number invocations currently run.' },
    builtSourceHash: { type: 'string', maxLength: 64, description: 'Hash of the spec.source the controller last built (hand-written manifests).' },
  },
};

export const buildSpecSchema: JsonSchema = {
  type: 'object',
  required: ['entrypoint', 'archiveConfigMap'],
  additionalProperties: false,
  description: 'One publish: bundle the uploaded project and publish a new version of every Function its entrypoint defines.',
  properties: {
    entrypoint: { type: 'string', minLength: 1, maxLength: 4096, description: 'Path of the entry file inside the uploaded archive, e.g. index.ts.' },
    archiveConfigMap: objectName('Manifest ConfigMap (in this namespace) of the uploaded archive.tar.gz: its size, sha256 and content-addressed chunk ConfigMaps.'),
    functionNames: {
      type: 'array',
      maxItems: 1000,
      description: 'Publish only these Functions of the entrypoint; absent: all of them.',
      items: { type: 'string', minLength: 1, maxLength: MAX_FUNCTION_NAME_LENGTH },
    },
  },
};

export const buildStatusSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Progress and outcome of the build.',
  properties: {
    phase: phase('PENDING until a build pod runs, then RUNNING, then COMPLETED or FAILED.'),
    observedGeneration,
    conditions,
    startedAt: timestamp('When the build pod started.'),
    endedAt: timestamp('When the build finished.'),
    builtFunctions: {
      type: 'array',
      description: 'The Functions built or updated, with the version each got.',
      items: {
        type: 'object',
        required: ['id', 'name', 'createdVersion'],
        additionalProperties: false,
        properties: {
          id: uuid('Function ID (the Function\'s metadata.uid).'),
          name: { type: 'string', minLength: 1, maxLength: MAX_FUNCTION_NAME_LENGTH, description: 'Function name.' },
          createdVersion: uuid('ID of the version this build created.'),
        },
      },
    },
    cause,
  },
};

export const invocationSpecSchema: JsonSchema = {
  type: 'object',
  required: ['functionName', 'functionUid', 'versionId', 'bundleConfigMap', 'params', 'sessionConfig', 'timeoutSeconds', 'sessionId'],
  additionalProperties: false,
  description: 'One run of a Function version in a fresh browser session; the controller runs it in a browser pod.',
  properties: {
    functionName: { type: 'string', minLength: 1, maxLength: MAX_FUNCTION_NAME_LENGTH, description: 'Name of the invoked Function.' },
    functionUid: uuid('ID (metadata.uid) of the invoked Function.'),
    versionId: uuid('ID of the Function version to run.'),
    bundleConfigMap: objectName('The version\'s artifact manifest ConfigMap.'),
    params: freeForm('The params passed to the handler (JSON).'),
    sessionConfig: freeForm('The version\'s sessionConfig deep-merged with this invocation\'s sessionCreateParams.'),
    timeoutSeconds: {
      type: 'integer',
      minimum: SESSION_TIMEOUT_MIN_SECONDS,
      maximum: SESSION_TIMEOUT_MAX_SECONDS,
      description: `How long the handler may run, in seconds (${SESSION_TIMEOUT_MIN_SECONDS} to ${SESSION_TIMEOUT_MAX_SECONDS}); then the session is closed and the invocation fails with TIMED_OUT.`,
    },
    sessionId: uuid('ID of the browser session the invocation runs in.'),
  },
};

export const invocationStatusSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Progress and outcome of the invocation.',
  properties: {
    phase: phase('PENDING until its browser pod runs, then RUNNING, then COMPLETED or FAILED.'),
    observedGeneration,
    conditions,
    podName: objectName('The browser pod running the invocation.'),
    attempts: { type: 'integer', minimum: 0, description: 'How many browser pods were started for it (a pod lost to a node restart is retried once).' },
    startedAt: timestamp('When the handler started.'),
    endedAt: timestamp('When the invocation finished.'),
    expiresAt: timestamp('When the invocation times out if it is still running.'),
    results: { description: 'What the handler returned (any JSON value).' },
    cause,
  },
};

// Kubernetes quantities as pods take them (cpu "250m", "1"; memory "512Mi", "2G").
const QUANTITY_PATTERN = '^[0-9]+(\\.[0-9]+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$';
const quantity = (description: string): JsonSchema => ({ type: 'string', pattern: QUANTITY_PATTERN, maxLength: 32, description });
const count = (description: string, maximum: number): JsonSchema => ({ type: 'integer', minimum: 0, maximum, description });

const MAX_POOL_MEMBERS = 100;

const launchShapeSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'How members launch their browser. An invocation whose sessionConfig launches the same way (browserSettings.viewport) starts on a member; any other starts cold.',
  properties: {
    viewport: {
      type: 'object',
      required: ['width', 'height'],
      additionalProperties: false,
      description: 'The size of the pages (their innerWidth and innerHeight; Chromium makes windows at least 500 wide).',
      properties: {
        width: { type: 'integer', minimum: 1, maximum: 10000, description: 'Width in pixels.' },
        height: { type: 'integer', minimum: 1, maximum: 10000, description: 'Height in pixels.' },
      },
    },
  },
};

function runtimePackageList(description: string): JsonSchema {
  return { type: 'array', maxItems: RUNTIME_PACKAGES.length, items: { type: 'string', enum: [...RUNTIME_PACKAGES] }, description };
}

export const browserPoolSpecSchema: JsonSchema = {
  type: 'object',
  required: ['minIdle', 'maxIdle'],
  additionalProperties: false,
  description: 'Pre-started browser pods of one launch shape for the invocations of this namespace. Each member serves one invocation and is then replaced.',
  properties: {
    minIdle: count('Idle members kept ready while the pool is in use.', MAX_POOL_MEMBERS),
    maxIdle: count('The most idle members demand (waiting and arriving invocations) may call for; at least minIdle.', MAX_POOL_MEMBERS),
    idleSeconds: count('Without a matching invocation for this many seconds the pool scales to zero; 0 keeps it (default 600).', 7 * 24 * 3600),
    maxAgeSeconds: { type: 'integer', minimum: 60, maximum: 7 * 24 * 3600, description: 'An idle member older than this many seconds is replaced (default 1800).' },
    launch: launchShapeSchema,
    preload: runtimePackageList('The runtime packages each member loads before it is claimed (default: all); those an invocation imports besides are loaded once it is claimed.'),
    preloadArtifact: {
      type: 'string',
      pattern: '^artifact-[0-9a-f]{64}$',
      description:
        "The built artifact (its manifest ConfigMap, artifact-<sha256>, in this namespace) whose code each member imports before it is claimed, so its top level runs ahead; members then serve only invocations of that artifact. The operator's default pool names the artifact of the namespace's Functions when they share one.",
    },
    resources: {
      type: 'object',
      additionalProperties: false,
      description: 'Resources of each member pod (default: requests cpu 250m, memory 512Mi or the limit if smaller; limit memory BROWSERFN_POD_MEMORY_MB, 2Gi unless set; no CPU limit).',
      properties: {
        requests: {
          type: 'object',
          additionalProperties: false,
          description: 'What the scheduler reserves for a member.',
          properties: { cpu: quantity('CPU, e.g. 250m.'), memory: quantity('Memory, e.g. 512Mi.') },
        },
        limits: {
          type: 'object',
          additionalProperties: false,
          description: 'The most a member may use.',
          properties: { cpu: quantity('CPU, e.g. 2 (a CFS quota: a browser held at it renders and runs scripts slower).'), memory: quantity('Memory, e.g. 2Gi.') },
        },
      },
    },
  },
};

export const browserPoolStatusSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Members of the pool as the controller last saw them.',
  properties: {
    observedGeneration,
    conditions,
    ready: count('Idle members ready to be claimed.', 10_000),
    starting: count('Idle members still starting.', 10_000),
    claimed: count('Members serving an invocation.', 10_000),
    desired: count('Idle members the controller aims for now.', 10_000),
    lastActiveTime: timestamp('When an invocation matching the pool last arrived.'),
    memberFailures: {
      type: 'object',
      additionalProperties: false,
      required: ['count', 'lastTime', 'lastReason'],
      description: 'Members that ended before they were claimed, with no hour between one and the next: from the third, the pool waits longer each time before it makes the next ahead of demand.',
      properties: {
        count: count('How many, with no hour between one and the next.', 1_000_000),
        lastTime: timestamp('When the last was seen ended.'),
        lastReason: { type: 'string', maxLength: 1024, description: 'Why the last ended.' },
      },
    },
  },
};

export const resourceSchemas: Record<ResourceKindName, { spec: JsonSchema; status: JsonSchema }> = {
  Function: { spec: functionSpecSchema, status: functionStatusSchema },
  Build: { spec: buildSpecSchema, status: buildStatusSchema },
  Invocation: { spec: invocationSpecSchema, status: invocationStatusSchema },
  BrowserPool: { spec: browserPoolSpecSchema, status: browserPoolStatusSchema },
};

const ajv = addFormats(new Ajv({ allErrors: true, strict: true }));
const validators = new Map<string, ValidateFunction>();

function validatorFor(kind: ResourceKindName, part: 'spec' | 'status'): ValidateFunction {
  const key = `${kind}.${part}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(resourceSchemas[kind][part]);
    validators.set(key, validate);
  }
  return validate;
}

/** What is wrong with an object's spec and status, naming each field ("spec.timeoutSeconds must be <= 900"); undefined when valid. */
export function resourceProblems(kind: ResourceKindName, obj: { spec?: unknown; status?: unknown }): string | undefined {
  if (obj.spec === undefined) return 'spec is required';
  const problems: string[] = [];
  for (const part of ['spec', 'status'] as const) {
    if (obj[part] === undefined) continue;
    const validate = validatorFor(kind, part);
    if (!validate(obj[part])) problems.push(describeErrors(part, validate.errors));
  }
  return problems.length ? problems.join('; ') : undefined;
}
