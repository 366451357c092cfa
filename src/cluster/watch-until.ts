// Waiting for one object to reach a state, as `kubectl wait` does, or to exist: a watch of that
// object from a version the caller holds, so no change between the read and the watch is missed.
import type { KubeObject } from './objects.js';
import type { ResourceClient, WatchEvent } from './port.js';

export interface WatchUntilResult<T extends KubeObject> {
  /** The newest version seen (the caller's own when nothing changed). */
  latest: T;
  /** Whether `latest` is what the caller waits for. */
  reached: boolean;
  /** Whether the object was deleted meanwhile. */
  deleted: boolean;
}

/**
 * Watches the object `name` from `resourceVersion` until `done` says so of an event, the watch
 * fails, `waitMs` pass or `signal` aborts, whichever comes first.
 */
async function watchNamed<T extends KubeObject>(
  resource: ResourceClient<T>,
  namespace: string | undefined,
  name: string,
  resourceVersion: string | undefined,
  waitMs: number,
  done: (event: WatchEvent<T>) => boolean,
  signal?: AbortSignal,
): Promise<void> {
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const timer = setTimeout(settle, waitMs);
  signal?.addEventListener('abort', settle, { once: true });
  const watch = await resource.watch(namespace, { fieldSelector: `metadata.name=${name}`, resourceVersion }, (event) => done(event) && settle(), () => settle());
  try {
    await settled;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', settle);
    await watch.stop();
  }
}

/**
 * Watches `object` until `reached` holds for it, it is deleted, the watch fails, `waitMs` pass or
 * `signal` aborts, whichever comes first.
 */
export async function watchUntil<T extends KubeObject>(
  resource: ResourceClient<T>,
  object: T,
  reached: (object: T) => boolean,
  waitMs: number,
  signal?: AbortSignal,
): Promise<WatchUntilResult<T>> {
  const result: WatchUntilResult<T> = { latest: object, reached: reached(object), deleted: false };
  if (result.reached || waitMs <= 0 || signal?.aborted) return result;
  const { namespace, name, resourceVersion } = object.metadata;
  await watchNamed(
    resource,
    namespace,
    name,
    resourceVersion,
    waitMs,
    (event) => {
      if (event.type === 'BOOKMARK') return false;
      if (event.type === 'DELETED') return (result.deleted = true);
      result.latest = event.object;
      result.reached = reached(event.object);
      return result.reached;
    },
    signal,
  );
  return result;
}

/**
 * Waits for the object `name` to exist: a list of that name, then a watch from the list's version,
 * so one created between the two is not missed. Undefined when `waitMs` pass first.
 */
export async function watchForObject<T extends KubeObject>(resource: ResourceClient<T>, namespace: string, name: string, waitMs: number): Promise<T | undefined> {
  const listed = await resource.list(namespace, { fieldSelector: `metadata.name=${name}` });
  if (listed.items[0] || waitMs <= 0) return listed.items[0];
  let found: T | undefined;
  await watchNamed(resource, namespace, name, listed.resourceVersion, waitMs, (event) => {
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return false;
    found = event.object;
    return true;
  });
  return found;
}
