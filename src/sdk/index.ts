// `import { defineFn } from "browserfn"`: the SDK bundled into user code. Node built-ins only.
import { createFunctionRuntime, settingsFromEnv } from './function-runtime.js';

export type {
  FunctionContext,
  FunctionHandler,
  FunctionOptions,
  FunctionSession,
  FunctionInvocationInfo,
  FunctionErrorReport,
  SessionConfig,
} from './types.js';
export { DuplicateFunctionNameError } from './registry.js';
export { MAX_FUNCTION_NAME_LENGTH, InvalidFunctionNameError } from './function-name.js';

const runtime = createFunctionRuntime(settingsFromEnv(process.env, process.cwd()));

/**
 * Registers a Function. `handler(ctx, params)` gets the session's CDP URL in `ctx.session.connectUrl`
 * and returns any JSON-serializable value.
 */
export const defineFn = runtime.defineFn;
