// A real cluster seen through a faulty or watched network: every method call of its resource
// clients passes through `around`, which may record it, fail it, hold it, or go on with it.
import type { ResourceType } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';

export interface ClusterCall {
  type: ResourceType;
  method: string;
  args: unknown[];
  /** Makes the call on the real cluster. */
  proceed(): unknown;
}

export function aroundClusterCalls(cluster: ClusterPort, around: (call: ClusterCall) => unknown): ClusterPort {
  return new Proxy(cluster, {
    get(target, prop, receiver) {
      if (prop !== 'resource') return Reflect.get(target, prop, receiver) as unknown;
      return (type: ResourceType) =>
        new Proxy(target.resource(type), {
          get(client, method, r) {
            const value = Reflect.get(client, method, r) as unknown;
            if (typeof value !== 'function' || typeof method !== 'string') return value;
            return (...args: unknown[]) => around({ type, method, args, proceed: () => (value as (...a: unknown[]) => unknown).apply(client, args) });
          },
        });
    },
  });
}
