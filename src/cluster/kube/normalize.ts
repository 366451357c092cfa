// Objects as the port hands them out: apiVersion and kind always set (list items lack them) and
// no managedFields (server-side-apply bookkeeping the port does not use; it only bloats caches).
import { apiVersionOf, type KubeObject, type ResourceType } from '../objects.js';

export function fromServer<T extends KubeObject>(type: ResourceType, raw: KubeObject): T {
  const { apiVersion: _apiVersion, kind: _kind, metadata, ...rest } = raw;
  const { managedFields: _managedFields, ...meta } = metadata as KubeObject['metadata'] & { managedFields?: unknown };
  return { apiVersion: apiVersionOf(type), kind: type.kind, metadata: meta, ...rest } as T;
}

/** The body of a create: the server assigns resourceVersion and refuses one sent with a new object. */
export function forCreate(type: ResourceType, obj: KubeObject): KubeObject {
  const { resourceVersion: _resourceVersion, ...metadata } = obj.metadata;
  return { ...obj, apiVersion: apiVersionOf(type), kind: type.kind, metadata };
}

export function forUpdate(type: ResourceType, obj: KubeObject): KubeObject {
  return { ...obj, apiVersion: apiVersionOf(type), kind: type.kind };
}
