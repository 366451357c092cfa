// Who may use a live-view URL: a valid token of this session whose channel is open here or at the
// replica recorded as holding it; and which replica may ask this one for the channel it holds.
import type { ApiDeps } from '../deps.js';
import { HttpError } from '../http-error.js';
import type { LiveChannel } from './live-channel.js';
import type { LiveLocator } from './live-locator.js';
import type { LiveHub } from './live-hub.js';
import { verifyLiveToken, type LiveTokenClaims } from './live-token.js';

export interface LiveViewer {
  claims: LiveTokenClaims;
  channel: LiveChannel;
}

export async function authorizeViewer(locator: LiveLocator, deps: ApiDeps, sessionId: string, token: string): Promise<LiveViewer> {
  const check = verifyLiveToken(deps.settings.podTokenSecret, token, sessionId);
  if (!check.ok) throw new HttpError(401, check.reason);
  const channel = await locator.find(check.claims.project, check.claims.sessionId);
  if (!channel) throw new HttpError(404, `Session ${sessionId} is not live (it has ended)`);
  return { claims: check.claims, channel };
}

/** Another API replica asking for a channel held here (never one held elsewhere: nothing travels on). */
export function authorizeReplica(hub: LiveHub, deps: ApiDeps, sessionId: string, authorization: string | undefined): LiveViewer {
  const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1] ?? '';
  const check = verifyLiveToken(deps.settings.podTokenSecret, token, sessionId, { audience: 'replica' });
  if (!check.ok) throw new HttpError(401, check.reason);
  const channel = hub.get(check.claims.project, check.claims.sessionId);
  if (!channel) throw new HttpError(404, `Session ${sessionId} is not live on this API replica`);
  return { claims: check.claims, channel };
}
