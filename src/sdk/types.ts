// Public types of the Function SDK. Type-only imports keep the SDK free of runtime dependencies.
import type { SessionConfig } from '../schemas/session-config.js';

export type { SessionConfig };

export interface FunctionSession {
  /** The browser session's ID. */
  id: string;
  /** The CDP WebSocket URL of the session's browser (playwright-core, puppeteer-core and chrome-remote-interface accept it). */
  connectUrl: string;
}

export interface FunctionInvocationInfo {
  id: string;
  region: string;
}

export interface FunctionContext {
  session: FunctionSession;
  /** Values of the secrets attached to the Function, by secret key. */
  secrets: Record<string, string>;
  invocation: FunctionInvocationInfo;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FunctionHandler<Params = any, Result = unknown> = (ctx: FunctionContext, params: Params) => Result | Promise<Result>;

export interface FunctionOptions {
  /** Deploy-time session defaults applied to every invocation. */
  sessionConfig?: SessionConfig;
  /** JSON Schema describing `params`. */
  parametersSchema?: Record<string, unknown>;
}

export interface FunctionDefinition {
  name: string;
  handler: FunctionHandler;
  options: FunctionOptions;
}

/** What the runtime API receives when a handler fails. */
export interface FunctionErrorReport {
  errorMessage: string;
  errorType: string;
  stackTrace: string[];
}
