// The API's wire shapes the console reads (README "API overview", docs/console.md), and what a page is.

/** A page draws into `main`; `signal` fires when the user navigates away. */
export type Page = (main: HTMLElement, route: Route, signal: AbortSignal) => Promise<void>;

export interface Route {
  /** Path segments after `#/`. */
  segments: string[];
  query: URLSearchParams;
}

export interface List<T> {
  data: T[];
  total: number;
}

export interface FunctionInfo {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  currentVersionId: string | null;
}

export interface Version {
  id: string;
  version: number;
  functionBuildId: string | null;
  sessionCreateParams: Record<string, unknown>;
  userParamsSchema: unknown;
  createdAt: string;
}

export interface Cause {
  code: string;
  message?: string;
}

export interface Build {
  id: string;
  status: string;
  request: { entrypoint: string };
  createdAt: string;
  endedAt?: string;
  builtFunctions?: { id: string; name: string; createdVersion: string }[];
  cause?: Cause;
}

export interface LogLine {
  message: string;
  timestamp: string;
  level?: string;
}

export interface Logs {
  logs: LogLine[];
  total: number;
}

export interface Invocation {
  id: string;
  functionId: string;
  versionId: string;
  sessionId: string;
  status: 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';
  params?: unknown;
  results?: unknown;
  createdAt: string;
  startedAt: string;
  endedAt?: string;
  cause?: Cause;
}

export interface Session {
  id: string;
  status: string;
  startedAt: string;
  endedAt?: string;
}

/** One recorded CDP event (GET /v1/sessions/{id}/logs). */
export interface SessionEvent {
  method: string;
  pageId?: string;
  timestamp: number;
  params: unknown;
}

export interface Replays {
  pageCount: number;
  /** `url` is the page's HLS playlist; browserfn adds `pageUrl`, the page's own address. */
  pages: { pageId: string; url: string; pageUrl?: string; startTimeMs: number; endTimeMs: number }[];
}

export interface RecordingDownloads {
  downloads: { pageId: string; status: string; completedAt?: string; downloadUrl?: string }[];
}

export interface LiveUrls {
  debuggerFullscreenUrl: string;
  pages: { id: string; title: string; url: string; debuggerFullscreenUrl: string }[];
}

export const isTerminal = (status: string): boolean => status === 'COMPLETED' || status === 'FAILED';
