// Who may use a live-view URL: a valid token of this session whose pod channel is open here.
import type { ApiDeps } from '../deps.js';
import { HttpError } from '../http-error.js';
import type { LiveHub } from './live-hub.js';
import { verifyLiveToken, type LiveTokenClaims } from './live-token.js';
import type { PodChannel } from './pod-channel.js';

export interface LiveViewer {
  claims: LiveTokenClaims;
  channel: PodChannel;
}

export function authorizeViewer(hub: LiveHub, deps: ApiDeps, sessionId: string, token: string): LiveViewer {
  const check = verifyLiveToken(deps.settings.podTokenSecret, token, sessionId);
  if (!check.ok) throw new HttpError(401, check.reason);
  const channel = hub.get(check.claims.project, check.claims.sessionId);
  if (!channel) throw new HttpError(404, `Session ${sessionId} is not live (it has ended, or its browser is connected to another API replica)`);
  return { claims: check.claims, channel };
}
