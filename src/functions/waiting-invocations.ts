// How many of a project's invocations wait for a pod: what the queue cap counts on every invoke.
// Listing the project's invocations to count them costs a read and a parse of every one still in
// the store (finished ones stay until retention archives them, an hour by default): with 3,000 in
// the embedded store, an invoke took 41 ms (p50) against 6 ms counted from a cache, the event loop
// blocked meanwhile. So the count comes from a watch-fed cache (an informer: the controllers' own
// in `serve`, the façade's in `api`) once it has synced, and from a list before that.
import { Kinds } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import type { InvocationObject } from '../schemas/resources.js';
import { isWaiting } from './invocations.js';

/** A watch-fed cache of Invocations (the controller runtime's Informer is one). */
export interface InvocationCache {
  readonly hasSynced: boolean;
  get(namespace: string, name: string): InvocationObject | undefined;
  list(filter: (invocation: InvocationObject) => boolean): InvocationObject[];
}

/** How long an invocation created here is counted while the cache has not heard of it. */
const UNSEEN_FOR_MS = 60_000;

export class WaitingInvocations {
  #cache: InvocationCache | undefined;
  /** Created by this process and perhaps not in the cache yet, by namespace/name: a caller's next invoke must count them. */
  readonly #unseen = new Map<string, { project: string; name: string; at: number }>();

  constructor(
    private readonly cluster: ClusterPort,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts from this cache once it has synced (until then, and without one, by listing). */
  readFrom(cache: InvocationCache): void {
    this.#cache = cache;
  }

  /** An invocation this process just created. */
  created(invocation: InvocationObject): void {
    const { namespace, name } = invocation.metadata;
    this.#unseen.set(`${namespace}/${name}`, { project: namespace!, name, at: this.now() });
  }

  async count(project: string): Promise<number> {
    const cache = this.#cache;
    if (!cache?.hasSynced) {
      this.#unseen.clear();
      return (await this.cluster.resource<InvocationObject>(Kinds.Invocation).list(project)).items.filter(isWaiting).length;
    }
    let unseen = 0;
    for (const [key, entry] of this.#unseen) {
      if (cache.get(entry.project, entry.name) || this.now() - entry.at > UNSEEN_FOR_MS) this.#unseen.delete(key);
      else if (entry.project === project) unseen += 1;
    }
    return unseen + cache.list((invocation) => invocation.metadata.namespace === project && isWaiting(invocation)).length;
  }
}
