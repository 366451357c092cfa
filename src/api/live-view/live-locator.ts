// Where a running session's live channel is. A pod dials one API replica (whichever the Service
// picked); that replica records its own address on the Invocation, and any other replica a viewer
// reaches answers through it (replica-channel.ts). With one replica, or none announced, the channel
// is here or nowhere. The recorded address is signed with the replicas' shared key: an Invocation
// annotated by anyone else (kubectl in the project's namespace) never sends a replica anywhere.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Kinds } from '../../cluster/objects.js';
import { isNotFound } from '../../cluster/port.js';
import { retryOnConflict } from '../../cluster/retry.js';
import { getInvocationBySession, isTerminal } from '../../functions/invocations.js';
import { Annotations, type InvocationObject } from '../../schemas/resources.js';
import type { ApiDeps } from '../deps.js';
import type { LiveChannel } from './live-channel.js';
import type { LiveHub } from './live-hub.js';
import { ReplicaChannel } from './replica-channel.js';

/** How long a read of a running session waits for its channel: its pod dials in moments after the handler got its event. */
export const LIVE_CHANNEL_WAIT_MS = 10_000;
/** How often a waiting caller looks for the channel on other replicas (and whether the session has ended). */
const LOOK_AGAIN_MS = 500;
/** A holder found is trusted this long (a DevTools frontend loads a few hundred files at once). */
const HOLDER_CACHE_MS = 5_000;
/** The HMAC context of recorded addresses (tokens have contexts of their own, so none passes for another). */
const ADDRESS_CONTEXT = 'browserfn.dev/live-replica-address/v1\0';

export class LiveLocator {
  #self?: string;
  readonly #holders = new Map<string, { url: string; at: number }>();

  constructor(
    readonly hub: LiveHub,
    private readonly deps: Pick<ApiDeps, 'cluster' | 'archive' | 'settings' | 'log'>,
  ) {}

  /** This replica's base URL as other replicas reach it (unset: it is the only one they would find). */
  announceAs(url: string | undefined): void {
    this.#self = url;
  }

  /** A pod's channel attached here: other replicas are told where it is. */
  async attached(invocation: InvocationObject): Promise<void> {
    const self = this.#self;
    if (!self) return;
    const invocations = this.deps.cluster.resource<InvocationObject>(Kinds.Invocation);
    const { namespace, name } = invocation.metadata;
    try {
      await retryOnConflict(async () => {
        const current = await invocations.get(namespace, name);
        const recorded = `${self} ${this.#sign(self)}`;
        if (!current || isTerminal(current) || current.metadata.annotations?.[Annotations.liveReplica] === recorded) return;
        await invocations.update({ ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [Annotations.liveReplica]: recorded } } });
      });
    } catch (err) {
      if (!isNotFound(err)) this.deps.log.warn({ invocation: name, err: (err as Error).message }, 'could not record which API replica holds the live channel; other replicas cannot serve its live view');
    }
  }

  /**
   * The session's channel: this replica's own, else the one of the replica recorded as holding it,
   * looking again until `waitMs` have passed (a pod that has just started dials in moments later).
   * Undefined once the session has ended: its pod dials no more.
   */
  async find(project: string, sessionId: string, waitMs = 0): Promise<LiveChannel | undefined> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const local = this.hub.get(project, sessionId);
      if (local) return local;
      const holder = await this.#holder(project, sessionId);
      if (holder.url) return new ReplicaChannel(holder.url, { project, sessionId: sessionId.toLowerCase(), secret: this.deps.settings.podTokenSecret });
      const remaining = deadline - Date.now();
      if (holder.ended || remaining <= 0) return undefined;
      const arrived = await this.hub.waitFor(project, sessionId, Math.min(LOOK_AGAIN_MS, remaining));
      if (arrived) return arrived;
    }
  }

  #sign(url: string): string {
    return createHmac('sha256', this.deps.settings.podTokenSecret).update(ADDRESS_CONTEXT + url).digest('base64url');
  }

  /** The address in a recorded `<url> <signature>`, if a replica signed it. */
  #verified(recorded: string | undefined): string | undefined {
    const [url, signature, ...rest] = (recorded ?? '').split(' ');
    if (!url || !signature || rest.length > 0 || !/^https?:\/\//.test(url)) return undefined;
    const expected = Buffer.from(this.#sign(url));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given) ? url : undefined;
  }

  /** The other replica recorded as holding the session's channel, and whether the session has ended. */
  async #holder(project: string, sessionId: string): Promise<{ url?: string; ended: boolean }> {
    const key = `${project}/${sessionId.toLowerCase()}`;
    const cached = this.#holders.get(key);
    if (cached && Date.now() - cached.at < HOLDER_CACHE_MS) return { url: cached.url, ended: false };
    this.#holders.delete(key);
    const { invocation } = await getInvocationBySession(this.deps.cluster, this.deps.archive, project, sessionId);
    if (isTerminal(invocation)) return { ended: true };
    const url = this.#verified(invocation.metadata.annotations?.[Annotations.liveReplica]);
    if (!url || url === this.#self) return { ended: false };
    const now = Date.now();
    for (const [other, { at }] of this.#holders) if (now - at >= HOLDER_CACHE_MS) this.#holders.delete(other);
    this.#holders.set(key, { url, at: now });
    return { url, ended: false };
  }
}
