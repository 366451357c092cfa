// One process's Function runtime: a registry plus what defineFn does in each phase.
// `BB_FUNCTIONS_PHASE=introspect` writes manifests and starts nothing; any other value (default
// `runtime`) serves invocations from the runtime API once the first Function is defined.
import { assertFunctionName } from './function-name.js';
import { serveInvocations } from './invocation-loop.js';
import { writeManifest } from './manifest-writer.js';
import { FunctionRegistry } from './registry.js';
import { RuntimeApiClient } from './runtime-api-client.js';
import type { FunctionHandler, FunctionOptions } from './types.js';

export type FunctionPhase = 'runtime' | 'introspect';

export interface FunctionRuntimeSettings {
  phase: FunctionPhase;
  /** `host:port` of the runtime API. */
  runtimeApi: string;
  /** Where introspection writes `.browserbase/functions/manifests`. */
  cwd: string;
  /** Called when the invocation loop cannot go on (the runtime API is gone). */
  onFatal: (error: unknown) => void;
}

export interface FunctionRuntime {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  defineFn: <Params = Record<string, any>>(name: string, handler: FunctionHandler<Params>, options?: FunctionOptions) => void;
  registry: FunctionRegistry;
}

/** Same default as @browserbasehq/sdk-functions when AWS_LAMBDA_RUNTIME_API is unset. */
export const DEFAULT_RUNTIME_API = '127.0.0.1:14113';

export function settingsFromEnv(env: NodeJS.ProcessEnv, cwd: string): FunctionRuntimeSettings {
  return {
    phase: env.BB_FUNCTIONS_PHASE === 'introspect' ? 'introspect' : 'runtime',
    runtimeApi: env.AWS_LAMBDA_RUNTIME_API || DEFAULT_RUNTIME_API,
    cwd,
    onFatal: (error) => {
      console.error('browserfn: the Function runtime stopped:', error);
      process.exit(1);
    },
  };
}

export function createFunctionRuntime(settings: FunctionRuntimeSettings): FunctionRuntime {
  const registry = new FunctionRegistry();
  let serving = false;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  function defineFn<Params = Record<string, any>>(name: string, handler: FunctionHandler<Params>, options: FunctionOptions = {}): void {
    assertFunctionName(name);
    if (typeof handler !== 'function') throw new TypeError(`defineFn("${name}"): the handler must be a function`);
    assertOptions(name, options);
    const definition = { name, handler: handler as FunctionHandler, options };
    registry.register(definition);
    if (settings.phase === 'introspect') {
      writeManifest(settings.cwd, definition, registry.size === 1);
    } else if (!serving) {
      serving = true;
      // Deferred so every defineFn of the bundle's synchronous module code is registered first.
      setImmediate(() => serveInvocations(new RuntimeApiClient(settings.runtimeApi), registry).catch(settings.onFatal));
    }
  }

  return { defineFn, registry };
}

function assertOptions(name: string, options: unknown): asserts options is FunctionOptions {
  if (!isPlainRecord(options)) throw new TypeError(`defineFn("${name}"): options must be an object`);
  for (const key of ['sessionConfig', 'parametersSchema'] as const) {
    const value = options[key];
    if (value !== undefined && !isPlainRecord(value)) throw new TypeError(`defineFn("${name}"): options.${key} must be an object`);
    // A schema library's object (a Zod schema) would be written to the manifest as its internals.
    if (value !== undefined && !isJsonObject(value)) {
      throw new TypeError(
        `defineFn("${name}"): options.${key} must be a plain JSON object, not a ${value.constructor?.name ?? 'class'} instance` +
          (key === 'parametersSchema' ? ': pass a JSON Schema (for Zod, z.toJSONSchema(schema)), or use defineFn of @browserbasehq/sdk-functions, which takes a Zod schema' : ''),
      );
    }
  }
}

function isJsonObject(value: Record<string, unknown>): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
