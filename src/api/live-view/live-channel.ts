// What routes need of a running session's live view, wherever its pod's channel is: on this API
// replica (pod-channel.ts) or on another one (replica-channel.ts).
import type WebSocket from 'ws';
import type { SessionMetrics } from '../../schemas/session-metrics.js';

export interface PodResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

export interface RelayOptions {
  viewOnly: boolean;
  /** When the viewer's token expires, epoch milliseconds: the relay ends then. */
  expiresAtMs: number;
}

export interface LiveChannel {
  /** A file of Chromium's DevTools frontend, or its page list (`/json/list`). */
  http(path: string): Promise<PodResponse>;
  metrics(): Promise<SessionMetrics>;
  /** Pipes a viewer's WebSocket to a CDP endpoint of the pod until either side or the token's expiry ends it. */
  relay(viewerSocket: WebSocket, path: string, options: RelayOptions): void;
}

/** DevTools frontend files and screenshots travel as single frames. */
export const MAX_LIVE_FRAME_BYTES = 256 * 1024 * 1024;
