// The agents' only channel to the control plane: GET input, GET artifact, POST report under
// /internal/v1/pods/{namespace}/{pod}, each with the pod's bearer token. Network errors and 5xx
// are retried with backoff; the report is retried longer, since losing it loses the outcome.
import type { AgentSettings } from './agent-settings.js';
import type { PodReport } from '../../schemas/reports.js';
import { fitReport } from './report-fit.js';

const REQUEST_TIMEOUT_MS = 30_000;

export interface RetryPolicy {
  attempts: number;
  firstDelayMs: number;
}

export const FETCH_RETRY: RetryPolicy = { attempts: 3, firstDelayMs: 200 };
export const REPORT_RETRY: RetryPolicy = { attempts: 6, firstDelayMs: 250 };

export class ControlPlaneError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export class ControlPlaneClient {
  readonly #base: string;
  readonly #token: string;

  constructor(settings: Pick<AgentSettings, 'controlUrl' | 'namespace' | 'podName' | 'podToken'>) {
    this.#base = `${settings.controlUrl}/internal/v1/pods/${encodeURIComponent(settings.namespace)}/${encodeURIComponent(settings.podName)}`;
    this.#token = settings.podToken;
  }

  async getInput(): Promise<unknown> {
    const response = await this.#request('GET', '/input', FETCH_RETRY);
    return JSON.parse(response.toString('utf8')) as unknown;
  }

  async getArtifact(): Promise<Buffer> {
    return this.#request('GET', '/artifact', FETCH_RETRY);
  }

  /** Sends the report fitted to the sizes the control plane keeps (larger bodies are refused unread). */
  async postReport(report: PodReport): Promise<void> {
    await this.#request('POST', '/report', REPORT_RETRY, JSON.stringify(fitReport(report)));
  }

  async #request(method: string, path: string, retry: RetryPolicy, body?: string): Promise<Buffer> {
    let lastError: Error | undefined;
    for (let attempt = 0; attempt < retry.attempts; attempt += 1) {
      if (attempt > 0) await delay(retry.firstDelayMs * 2 ** (attempt - 1));
      try {
        return await this.#once(method, path, body);
      } catch (error) {
        lastError = error as Error;
        if (error instanceof ControlPlaneError && !error.retryable) break;
      }
    }
    throw lastError ?? new Error(`${method} ${path} failed`);
  }

  async #once(method: string, path: string, body?: string): Promise<Buffer> {
    let response: Response;
    try {
      response = await fetch(`${this.#base}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.#token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ControlPlaneError(`${method} ${path}: ${(error as Error).message}`, true);
    }
    const bytes = Buffer.from(await response.arrayBuffer());
    if (!response.ok) {
      throw new ControlPlaneError(`${method} ${path}: HTTP ${response.status} ${bytes.toString('utf8').slice(0, 300)}`, response.status >= 500);
    }
    return bytes;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
