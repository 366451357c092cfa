// A session's live channel held by another API replica (its pod dialled that one): the same
// operations, asked of that replica over its internal live routes with a short-lived replica token
// (live-token.ts). The holder answers from its own channel only, so a request never travels on.
import WebSocket, { type RawData } from 'ws';
import type { SessionMetrics } from '../../schemas/session-metrics.js';
import { MAX_LIVE_FRAME_BYTES, type LiveChannel, type PodResponse, type RelayOptions } from './live-channel.js';
import { issueLiveToken } from './live-token.js';

/** As a pod's own answers (pod-channel.ts). */
const REQUEST_TIMEOUT_MS = 20_000;
/** A token for one request lives only as long as the request may take. */
const REQUEST_TOKEN_MS = REQUEST_TIMEOUT_MS + 10_000;

export interface ReplicaSession {
  project: string;
  sessionId: string;
  /** The key live tokens are signed with, shared by every API replica. */
  secret: string;
}

/** Where a replica serves other replicas the live channels it holds. */
export const replicaLivePath = (sessionId: string, what: 'http' | 'metrics' | 'ws'): string => `/internal/v1/live/${sessionId}/${what}`;

export class ReplicaChannel implements LiveChannel {
  constructor(
    /** The holding replica's base URL (http://address:port). */
    readonly holder: string,
    private readonly session: ReplicaSession,
  ) {}

  async http(path: string): Promise<PodResponse> {
    const response = await this.#get(`${replicaLivePath(this.session.sessionId, 'http')}?path=${encodeURIComponent(path)}`);
    return { status: response.status, contentType: response.headers.get('content-type') ?? 'application/octet-stream', body: Buffer.from(await response.arrayBuffer()) };
  }

  async metrics(): Promise<SessionMetrics> {
    const response = await this.#get(replicaLivePath(this.session.sessionId, 'metrics'));
    if (response.status !== 200) throw new Error(`the replica holding the session's channel answered ${response.status}`);
    return (await response.json()) as SessionMetrics;
  }

  relay(viewerSocket: WebSocket, path: string, options: RelayOptions): void {
    const token = this.#token(options.expiresAtMs, options.viewOnly);
    const url = `${this.holder.replace(/^http/, 'ws')}${replicaLivePath(this.session.sessionId, 'ws')}?path=${encodeURIComponent(path)}`;
    const upstream = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, maxPayload: MAX_LIVE_FRAME_BYTES, perMessageDeflate: false });
    // What the viewer sends before the holder answers goes out once it has.
    const early: string[] = [];
    viewerSocket.on('message', (data: RawData) => {
      const message = data.toString();
      if (upstream.readyState === WebSocket.OPEN) upstream.send(message);
      else early.push(message);
    });
    upstream.on('open', () => early.splice(0).forEach((message) => upstream.send(message)));
    upstream.on('message', (data: RawData) => {
      if (viewerSocket.readyState === WebSocket.OPEN) viewerSocket.send(data.toString());
    });
    upstream.on('unexpected-response', (_req, res) => {
      viewerSocket.close(1011, `the API replica holding the session answered ${res.statusCode}`);
      upstream.terminate();
    });
    upstream.on('error', () => viewerSocket.close(1011, 'the API replica holding the session is unreachable'));
    upstream.on('close', (code, reason) => viewerSocket.close(sendableCloseCode(code), reason.toString().slice(0, 120)));
    viewerSocket.on('error', () => undefined);
    viewerSocket.on('close', () => upstream.close());
  }

  #token(exp: number, viewOnly: boolean): string {
    return issueLiveToken(this.session.secret, { project: this.session.project, sessionId: this.session.sessionId, viewOnly, exp }, 'replica');
  }

  async #get(path: string): Promise<Response> {
    const token = this.#token(Date.now() + REQUEST_TOKEN_MS, true);
    try {
      return await fetch(`${this.holder}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS), redirect: 'error' });
    } catch (err) {
      throw new Error(`the API replica holding the session's channel (${this.holder}) did not answer: ${(err as Error).message}`);
    }
  }
}

/** Close codes a peer may send on (1005, 1006 and 1015 only ever describe a close that had none). */
function sendableCloseCode(code: number): number {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999) ? code : 1011;
}
