// Waiting for one object to reach a state, as `kubectl wait` does, or to exist: a watch of that
// object from a version the caller holds, so no change between the read and the watch is missed.
import type { KubeObject } from './objects.js';
import type { ResourceClient } from './port.js';

export interface WatchUntilResult<T extends KubeObject> {
  /** The newest version seen (the caller's own when nothing changed). */
  latest: T;
  /** Whether `latest` is what the caller waits for. */
  reached: boolean;
  /** Whether the object was deleted meanwhile. */
  deleted: boolean;
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
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const timer = setTimeout(settle, waitMs);
  signal?.addEventListener('abort', settle, { once: true });
  const watch = await resource.watch(
    object.metadata.namespace,
    { fieldSelector: `metadata.name=${object.metadata.name}`, resourceVersion: object.metadata.resourceVersion },
    (event) => {
      if (event.type === 'BOOKMARK') return;
      if (event.type === 'DELETED') {
        result.deleted = true;
        return settle();
      }
      result.latest = event.object;
      result.reached = reached(event.object);
      if (result.reached) settle();
    },
    () => settle(),
  );
  try {
    await settled;
    return result;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', settle);
    await watch.stop();
  }
}

/**
 * Waits for the object `name` to exist: a list of that name, then a watch from the list's version,
 * so one created between the two is not missed. Undefined when `waitMs` pass first.
 */
export async function watchForObject<T extends KubeObject>(resource: ResourceClient<T>, namespace: string, name: string, waitMs: number): Promise<T | undefined> {
  const fieldSelector = `metadata.name=${name}`;
  const listed = await resource.list(namespace, { fieldSelector });
  if (listed.items[0] || waitMs <= 0) return listed.items[0];
  let found: T | undefined;
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const timer = setTimeout(settle, waitMs);
  const watch = await resource.watch(
    namespace,
    { fieldSelector, resourceVersion: listed.resourceVersion },
    (event) => {
      if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
      found = event.object;
      settle();
    },
    () => settle(),
  );
  try {
    await settled;
    return found;
  } finally {
    clearTimeout(timer);
    await watch.stop();
  }
}
