// The pod's side of a live-view relay: Chromium's own HTTP and WebSocket endpoints on loopback,
// reached only for the paths the live-view channel allows.
import WebSocket from 'ws';
import { isRelayableHttpPath, isRelayableWsPath } from '../../../schemas/live-channel.js';

/** DevTools frontend files are a few MiB at most; anything larger is not one of them. */
const MAX_ASSET_BYTES = 16 * 1024 * 1024;
const ASSET_TIMEOUT_MS = 15_000;

export interface RelayedAsset {
  status: number;
  contentType: string;
  body: Buffer;
}

export class ChromiumRelay {
  readonly #httpBase: string;
  readonly #browserWsUrl: string;

  /** `wsEndpoint`: the browser-level CDP URL (ws://127.0.0.1:port/devtools/browser/<id>). */
  constructor(wsEndpoint: string) {
    const url = new URL(wsEndpoint);
    this.#httpBase = `http://${url.host}`;
    this.#browserWsUrl = wsEndpoint;
  }

  async fetchAsset(path: string): Promise<RelayedAsset> {
    if (!isRelayableHttpPath(path)) return { status: 404, contentType: 'text/plain', body: Buffer.from('not relayed') };
    const response = await fetch(this.#httpBase + path, { signal: AbortSignal.timeout(ASSET_TIMEOUT_MS) });
    const body = Buffer.from(await response.arrayBuffer());
    if (body.length > MAX_ASSET_BYTES) return { status: 502, contentType: 'text/plain', body: Buffer.from('asset too large') };
    return { status: response.status, contentType: response.headers.get('content-type') ?? 'application/octet-stream', body };
  }

  /** A CDP connection to one page, or to the browser; no Origin header, so Chromium accepts it. */
  openSocket(path: string): WebSocket {
    if (!isRelayableWsPath(path)) throw new Error(`${path} is not relayed`);
    const target = path === '/devtools/browser' ? this.#browserWsUrl : `${this.#httpBase.replace(/^http/, 'ws')}${path}`;
    return new WebSocket(target, { maxPayload: 256 * 1024 * 1024, perMessageDeflate: false });
  }
}
