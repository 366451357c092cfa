// What build and browser pods report to the control plane (POST /internal/v1/pods/:ns/:name/report),
// and what the control plane hands them (GET …/input).
import type { Cause } from './resources.js';
import { RUNTIME_PACKAGES, type RuntimePackage } from './runtime-packages.js';
import type { SessionMetrics } from './session-metrics.js';

export type LogLevel = 'info' | 'warn' | 'error' | 'debug';

export interface LogEntry {
  level: LogLevel;
  message: string;
  /** RFC 3339 with milliseconds. */
  timestamp: string;
}

/** One recorded CDP event of a browser session. */
export interface SessionLogEntry {
  method: string;
  /** Target ID of the page the event came from. */
  pageId?: string;
  /** CDP session ID the recorder attached to that page with. */
  sessionId?: string;
  frameId?: string;
  loaderId?: string;
  /** Milliseconds since the epoch when the recorder received the event. */
  timestamp: number;
  params: unknown;
}

export interface BuiltFunctionReport {
  name: string;
  sessionConfig?: Record<string, unknown>;
  parametersSchema?: Record<string, unknown>;
}

/** The header carrying an artifact's sha256 (hex) on GET and PUT /internal/v1/pods/{ns}/{pod}/artifact. */
export const ARTIFACT_SHA256_HEADER = 'x-artifact-sha256';

/** An artifact as the agents see it: opaque bytes, named by their sha256. */
export interface ArtifactRef {
  sha256: string;
  size: number;
}

export interface BuildReport {
  kind: 'build';
  phase: 'COMPLETED' | 'FAILED';
  cause?: Cause;
  /** COMPLETED only, sorted by name. */
  functions?: BuiltFunctionReport[];
  /** COMPLETED only: the built artifact, uploaded before the report (PUT …/artifact), as opaque bytes. */
  artifact?: ArtifactRef;
  /** COMPLETED only: the runtime packages the artifact's code imports. */
  runtimePackages?: RuntimePackage[];
  logs: LogEntry[];
}

/**
 * A browser pod's outcome, sent as soon as the handler's is known and its console output is
 * complete: the invocation ends on it, and the pod then closes the session (SessionRecordsReport).
 */
export interface InvocationReport {
  kind: 'invocation';
  phase: 'COMPLETED' | 'FAILED';
  /** Absent when the handler returned undefined or null. */
  results?: unknown;
  cause?: Cause;
  /** When the handler got the event (the agent's start when it never did). RFC 3339 ms. */
  startedAt: string;
  endedAt: string;
  logs: LogEntry[];
  /** Sent with the outcome only by pods that report everything at once (agents before the session's records had a report of their own). */
  sessionLogs?: SessionLogEntry[];
  metrics?: SessionMetrics;
}

/** What a browser pod sends once its session has closed and its recording is stored (POST …/session-records). */
export interface SessionRecordsReport {
  sessionLogs: SessionLogEntry[];
  /** Performance samples and navigation timings of the session's pages. */
  metrics?: SessionMetrics;
}

export type PodReport = BuildReport | InvocationReport;

/** What the control plane keeps of an invocation's report besides its logs. */
export type InvocationOutcome = Pick<InvocationReport, 'phase' | 'results' | 'cause' | 'startedAt' | 'endedAt'>;

export interface BuildInput {
  kind: 'build';
  buildId: string;
  entrypoint: string;
}

export interface InvocationInput {
  kind: 'invocation';
  invocationId: string;
  functionName: string;
  params: Record<string, unknown>;
  sessionId: string;
  sessionConfig: Record<string, unknown>;
  timeoutSeconds: number;
  region: string;
  secrets: Record<string, string>;
  /** The session recording's size cap (BROWSERFN_RECORDING_MAX_MB); unset: the default. */
  recordingMaxBytes?: number;
  /** What the artifact must hash to (a cold pod also has it in its spec; a pool member learns it here). */
  artifactSha256?: string;
  /** The artifact itself, base64, when it comes with a pool member's assignment (small artifacts only). */
  artifactBase64?: string;
  /** The operator's proxy, with its credentials, when the session's proxies ask for it (session-proxies.ts). */
  browserProxy?: string;
}

const logEntry = {
  type: 'object',
  required: ['level', 'message', 'timestamp'],
  properties: { level: { enum: ['info', 'warn', 'error', 'debug'] }, message: { type: 'string' }, timestamp: { type: 'string' } },
};
const cause = { type: 'object', required: ['code'], properties: { code: { type: 'string', maxLength: 64 }, message: { type: 'string' } } };

// What the console and the sessions API show of a session's records: names and ids as short
// strings, times as numbers (a number too large for a double, JSON's 1e999, is refused: api/validation.ts).
const id = { type: 'string', maxLength: 128 } as const;
const sessionLogsSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['method', 'timestamp'],
    properties: { method: { type: 'string', maxLength: 256 }, pageId: id, sessionId: id, frameId: id, loaderId: id, timestamp: { type: 'number' } },
  },
} as const;
const sessionMetricsSchema = {
  type: 'object',
  required: ['samples', 'navigations'],
  properties: {
    intervalMs: { type: 'number', minimum: 0 },
    samples: {
      type: 'array',
      items: { type: 'object', required: ['timestamp', 'pageId', 'metrics'], properties: { timestamp: { type: 'number' }, pageId: id, metrics: { type: 'object', additionalProperties: { type: 'number' } } } },
    },
    navigations: {
      type: 'array',
      items: { type: 'object', required: ['timestamp', 'pageId', 'url', 'timing'], properties: { timestamp: { type: 'number' }, pageId: id, url: { type: 'string' }, timing: { type: 'object' } } },
    },
    dropped: { type: 'object', properties: { samples: { type: 'integer', minimum: 0 }, navigations: { type: 'integer', minimum: 0 } } },
  },
} as const;

export const sessionRecordsReportSchema = {
  type: 'object',
  required: ['sessionLogs'],
  properties: { sessionLogs: sessionLogsSchema, metrics: sessionMetricsSchema },
} as const;

export const podReportSchema = {
  type: 'object',
  required: ['kind', 'phase', 'logs'],
  properties: {
    kind: { enum: ['build', 'invocation'] },
    phase: { enum: ['COMPLETED', 'FAILED'] },
    cause,
    logs: { type: 'array', items: logEntry },
    results: {},
    startedAt: { type: 'string' },
    endedAt: { type: 'string' },
    sessionLogs: sessionLogsSchema,
    metrics: sessionMetricsSchema,
    functions: {
      type: 'array',
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 }, sessionConfig: { type: 'object' }, parametersSchema: { type: 'object' } } },
    },
    runtimePackages: { type: 'array', maxItems: RUNTIME_PACKAGES.length, uniqueItems: true, items: { enum: [...RUNTIME_PACKAGES] } },
    artifact: {
      type: 'object',
      required: ['sha256', 'size'],
      additionalProperties: false,
      properties: { sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' }, size: { type: 'integer', minimum: 0 } },
    },
  },
} as const;
