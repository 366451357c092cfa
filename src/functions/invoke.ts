// The invoke use case: the public API's rules for sessionCreateParams, the params size and schema checks,
// then an Invocation object that the controller turns into a browser pod.
import { randomUUID } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { Kinds, ownerReferenceTo } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import { busy, conflict, invalid } from '../domain/errors.js';
import { describeErrors } from '../schemas/schema-errors.js';
import { Labels, type FunctionObject, type InvocationObject } from '../schemas/resources.js';
import { deepMergeSessionConfig, validateSessionConfig } from '../schemas/session-config.js';
import { usesOperatorProxy } from '../schemas/session-proxies.js';
import { PatternBudgetError, withPatternBudget } from '../schemas/linear-regexp.js';
import { compileParametersSchema, type UncheckableSchema } from '../schemas/parameters-schema.js';
import { CREATED_AT_ANNOTATION } from './invocations.js';
import type { WaitingInvocations } from './waiting-invocations.js';

export const MAX_PARAMS_BYTES = 64 * 1024;
export const TIMEOUT_BOUNDS = { min: 60, max: 900, default: 900 } as const;
const PER_INVOCATION_FORBIDDEN = ['region', 'keepAlive'] as const;

export interface InvokeRequest {
  params?: Record<string, unknown>;
  sessionCreateParams?: Record<string, unknown>;
}

export const invokeBodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    params: { type: 'object', description: "Passed to the handler as its params argument" },
    sessionCreateParams: { type: 'object', description: 'Per-invocation session overrides, deep-merged over the sessionConfig' },
  },
};

/** Compiled parameter schemas by version (see compileParametersSchema), the most recently used kept. */
const paramValidators = new Map<string, ValidateFunction | null | UncheckableSchema>();
const MAX_CACHED_VALIDATORS = 500;
/** Pattern work one invoke may cost (instructions × characters): about 0.1 s at worst. */
const PARAMS_PATTERN_BUDGET = 100_000_000;

/** How long a caller refused for a full queue is asked to wait. */
const QUEUE_FULL_RETRY_AFTER_SECONDS = 30;

/** What of the server's settings and state an invoke is checked against. */
export interface InvokeContext {
  /** Invocations one project may have waiting (BROWSERFN_MAX_QUEUED_INVOCATIONS_PER_PROJECT). */
  maxQueuedPerProject: number;
  waiting: WaitingInvocations;
  /** Whether the operator set a proxy for browsers (BROWSERFN_BROWSER_PROXY), which `proxies: true` asks for. */
  operatorProxy: boolean;
}

export async function invokeFunction(cluster: ClusterPort, fn: FunctionObject, request: InvokeRequest, context: InvokeContext): Promise<InvocationObject> {
  const version = fn.spec.version;
  if (!version) throw conflict(`Function ${fn.metadata.uid} has no published version yet; publish it first`);

  const params = request.params ?? {};
  const size = Buffer.byteLength(JSON.stringify(params));
  if (size > MAX_PARAMS_BYTES) throw invalid(`params is ${size} bytes when serialized; the limit is ${MAX_PARAMS_BYTES} bytes`);
  checkParams(version.id, version.parametersSchema, params);

  const overrides = request.sessionCreateParams ?? {};
  for (const field of PER_INVOCATION_FORBIDDEN) {
    if (field in overrides) throw invalid(`sessionCreateParams.${field} cannot be set per invocation; set it in the Function's sessionConfig instead`);
  }
  if ('timeout' in overrides) {
    const t = overrides.timeout;
    if (typeof t !== 'number' || !Number.isInteger(t) || t < TIMEOUT_BOUNDS.min || t > TIMEOUT_BOUNDS.max) {
      throw invalid(`sessionCreateParams.timeout must be an integer number of seconds from ${TIMEOUT_BOUNDS.min} to ${TIMEOUT_BOUNDS.max}`);
    }
  }
  const overrideErrors = validateSessionConfig(overrides);
  if (overrideErrors.length) throw invalid(`Invalid sessionCreateParams: ${overrideErrors.join('; ')}`);
  const sessionConfig = deepMergeSessionConfig(version.sessionConfig ?? {}, overrides);
  const timeoutSeconds = typeof sessionConfig.timeout === 'number' ? sessionConfig.timeout : TIMEOUT_BOUNDS.default;
  if (!context.operatorProxy && usesOperatorProxy(sessionConfig)) {
    throw invalid('The session asks for the operator\'s proxy (proxies: true, or an entry of type "browserbase"), and this server has none (BROWSERFN_BROWSER_PROXY); give your own with type "external" and a server, or leave proxies out');
  }

  await assertRoomInQueue(context, fn.metadata.namespace!);
  const sessionId = randomUUID();
  const created = await cluster.resource<InvocationObject>(Kinds.Invocation).create({
    apiVersion: 'browserfn.dev/v1alpha1',
    kind: 'Invocation',
    metadata: {
      name: randomUUID(),
      namespace: fn.metadata.namespace,
      labels: { [Labels.functionUid]: fn.metadata.uid!, [Labels.sessionId]: sessionId },
      annotations: { [CREATED_AT_ANNOTATION]: new Date().toISOString() },
      ownerReferences: [ownerReferenceTo(fn)],
    },
    spec: {
      functionName: fn.spec.name,
      functionUid: fn.metadata.uid!,
      versionId: version.id,
      bundleConfigMap: version.bundleConfigMap,
      params,
      sessionConfig,
      timeoutSeconds,
      sessionId,
    },
  });
  context.waiting.created(created);
  return created;
}

function checkParams(versionId: string, schema: Record<string, unknown> | undefined, params: unknown): void {
  if (!schema || Object.keys(schema).length === 0) return;
  let validate = paramValidators.get(versionId);
  if (validate === undefined) {
    // A schema that cannot check params would let them through unchecked: such invocations are refused below.
    validate = compileParametersSchema(schema);
    if (paramValidators.size >= MAX_CACHED_VALIDATORS) paramValidators.delete(paramValidators.keys().next().value!);
  } else {
    paramValidators.delete(versionId);
  }
  paramValidators.set(versionId, validate);
  if (validate instanceof Error) {
    throw invalid(`The Function's parameter schema cannot be checked: ${validate.message}. Publish a version whose schema avoids it`);
  }
  if (validate && !matchesWithinBudget(validate, params)) {
    throw invalid(`params do not match the Function's parameter schema: ${describeErrors('params', validate.errors)}`);
  }
}

function matchesWithinBudget(validate: ValidateFunction, params: unknown): boolean {
  try {
    return withPatternBudget(PARAMS_PATTERN_BUDGET, () => validate(params));
  } catch (err) {
    if (err instanceof PatternBudgetError) throw invalid(`params are too large for the patterns of the Function's parameter schema: ${err.message}; send shorter strings`);
    throw err;
  }
}

/** Waiting invocations are counted when one is asked for: a burst may pass the cap by the requests in flight, no more. */
async function assertRoomInQueue({ waiting, maxQueuedPerProject }: InvokeContext, project: string): Promise<void> {
  const queued = await waiting.count(project);
  if (queued >= maxQueuedPerProject) {
    throw busy(`This project has ${queued} invocations waiting to start, the most it may have (BROWSERFN_MAX_QUEUED_INVOCATIONS_PER_PROJECT=${maxQueuedPerProject}); try again when some have started`, QUEUE_FULL_RETRY_AFTER_SECONDS);
  }
}
