// The agents' only channel to the control plane: GET input (or assignment), GET/PUT artifact, POST report (and a browser pod's session records) under
// /internal/v1/pods/{namespace}/{pod}, each with the pod's bearer token. Network errors and 5xx
// are retried with backoff; the report is retried longer, since losing it loses the outcome.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AgentSettings } from './agent-settings.js';
import { ARTIFACT_SHA256_HEADER, type ArtifactRef, type PodReport, type SessionRecordsReport } from '../../schemas/reports.js';
import { fitReport, fitSessionRecords } from './report-fit.js';
import { httpCall, readBody } from './http-call.js';

const REQUEST_TIMEOUT_MS = 30_000;
/** Artifacts of up to 100 MiB and more take longer than a report. */
const ARTIFACT_TIMEOUT_MS = 5 * 60_000;
const REQUEST_TIMEOUT_BODY_BYTES = 1024 * 1024;

export interface RetryPolicy {
  attempts: number;
  firstDelayMs: number;
}

export const FETCH_RETRY: RetryPolicy = { attempts: 3, firstDelayMs: 200 };
export const REPORT_RETRY: RetryPolicy = { attempts: 6, firstDelayMs: 250 };
/** A waiting pool member rides out a roll of the API pods (about 30 s in all) rather than end and be replaced. */
export const ASSIGNMENT_RETRY: RetryPolicy = { attempts: 8, firstDelayMs: 250 };

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

  /**
   * A pool member's wait to be claimed: the control plane answers with the invocation input once
   * the member is claimed, or with nothing after about `waitSeconds` (ask again). The first ask
   * with `ready` tells the control plane the member is ready; one without waits all the same.
   */
  async waitForAssignment(waitSeconds: number, { ready = true, signal }: { ready?: boolean; signal?: AbortSignal } = {}): Promise<unknown> {
    const response = await this.#request('GET', `/assignment?waitSeconds=${waitSeconds}${ready ? '' : '&ready=false'}`, ASSIGNMENT_RETRY, undefined, {}, signal);
    return response.length === 0 ? undefined : (JSON.parse(response.toString('utf8')) as unknown);
  }

  /**
   * Streams the pod's artifact (the upload for build pods, the built artifact for browser pods) to
   * `file`, hashing it on the way, and refuses it unless it hashes to `expectedSha256` (from the
   * pod spec), or else to the sha256 its manifest records.
   */
  async downloadArtifact(file: string, expectedSha256?: string): Promise<ArtifactRef> {
    let lastError: Error | undefined;
    for (let attempt = 0; attempt < FETCH_RETRY.attempts; attempt += 1) {
      if (attempt > 0) await delay(FETCH_RETRY.firstDelayMs * 2 ** (attempt - 1));
      try {
        return await this.#downloadOnce(file, expectedSha256);
      } catch (error) {
        lastError = error as Error;
        if (error instanceof ControlPlaneError && !error.retryable) break;
      }
    }
    throw lastError ?? new Error('GET /artifact failed');
  }

  /** Stores a built artifact; the control plane checks its sha256 and size limit while it streams in. */
  async putArtifact(bytes: Buffer): Promise<ArtifactRef> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await this.#request('PUT', '/artifact', FETCH_RETRY, bytes, { 'content-type': 'application/octet-stream', [ARTIFACT_SHA256_HEADER]: sha256 });
    return { sha256, size: bytes.length };
  }

  /** Stores one file of the session recording (the control plane checks its name and the size cap). */
  async putRecordingFile(name: string, bytes: Buffer): Promise<void> {
    await this.#request('PUT', `/recording/${encodeURIComponent(name)}`, FETCH_RETRY, bytes, { 'content-type': 'application/octet-stream' });
  }

  /** Sends the report fitted to the sizes the control plane keeps (larger bodies are refused unread). */
  async postReport(report: PodReport): Promise<void> {
    await this.#request('POST', '/report', REPORT_RETRY, JSON.stringify(fitReport(report)), { 'content-type': 'application/json' });
  }

  /** A browser pod's closed session: its recorded CDP events and metrics, fitted like the report. */
  async postSessionRecords(records: SessionRecordsReport): Promise<void> {
    await this.#request('POST', '/session-records', REPORT_RETRY, JSON.stringify(fitSessionRecords(records)), { 'content-type': 'application/json' });
  }

  async #downloadOnce(file: string, expectedSha256: string | undefined): Promise<ArtifactRef> {
    let answer: IncomingMessage;
    try {
      answer = await httpCall(`${this.#base}/artifact`, { method: 'GET', headers: { authorization: `Bearer ${this.#token}` }, timeoutMs: ARTIFACT_TIMEOUT_MS });
    } catch (error) {
      throw new ControlPlaneError(`GET /artifact: ${(error as Error).message}`, true);
    }
    const status = answer.statusCode ?? 0;
    if (status < 200 || status > 299) {
      const text = await readBody(answer).then((bytes) => bytes.toString('utf8'), () => '');
      throw new ControlPlaneError(`GET /artifact: HTTP ${status} ${text.slice(0, 300)}`, status >= 500);
    }
    const announcedSha256 = answer.headers[ARTIFACT_SHA256_HEADER.toLowerCase()];
    const expected = expectedSha256 ?? (typeof announcedSha256 === 'string' ? announcedSha256 : '');
    const hash = createHash('sha256');
    let size = 0;
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(answer, hashing, createWriteStream(file, { mode: 0o600 }));
    } catch (error) {
      const announced = answer.headers['content-length'];
      throw new ControlPlaneError(`GET /artifact broke off after ${size} of ${announced ?? 'the announced'} bytes (a chunk missing or damaged on the control plane, or the connection lost): ${(error as Error).message}`, true);
    }
    const sha256 = hash.digest('hex');
    if (sha256 !== expected) {
      throw new ControlPlaneError(`The artifact failed its integrity check: its ${size} bytes hash to sha256 ${sha256}, expected ${expected || 'a recorded sha256'}`, false);
    }
    return { sha256, size };
  }

  async #request(method: string, path: string, retry: RetryPolicy, body?: string | Buffer, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Buffer> {
    let lastError: Error | undefined;
    for (let attempt = 0; attempt < retry.attempts && !signal?.aborted; attempt += 1) {
      if (attempt > 0) await delay(retry.firstDelayMs * 2 ** (attempt - 1));
      try {
        return await this.#once(method, path, body, headers, signal);
      } catch (error) {
        lastError = error as Error;
        if (error instanceof ControlPlaneError && !error.retryable) break;
      }
    }
    throw lastError ?? new Error(`${method} ${path} failed`);
  }

  async #once(method: string, path: string, body: string | Buffer | undefined, headers: Record<string, string>, signal: AbortSignal | undefined): Promise<Buffer> {
    let status: number;
    let bytes: Buffer;
    try {
      const answer = await httpCall(`${this.#base}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.#token}`, ...headers },
        body,
        timeoutMs: body !== undefined && body.length > REQUEST_TIMEOUT_BODY_BYTES ? ARTIFACT_TIMEOUT_MS : REQUEST_TIMEOUT_MS,
        signal,
      });
      status = answer.statusCode ?? 0;
      bytes = await readBody(answer);
    } catch (error) {
      throw new ControlPlaneError(`${method} ${path}: ${(error as Error).message}`, !signal?.aborted);
    }
    if (status < 200 || status > 299) {
      throw new ControlPlaneError(`${method} ${path}: HTTP ${status} ${bytes.toString('utf8').slice(0, 300)}`, status >= 500);
    }
    return bytes;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
