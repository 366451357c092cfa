// Where a kind lives in the Kubernetes REST API: the core group under /api/v1, every other group
// under /apis/<group>/<version>; namespaced kinds add /namespaces/<ns> unless listed across all.
import type { ResourceType } from '../objects.js';
import { InvalidError } from '../port.js';

const groupPath = (type: ResourceType): string => (type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`);

/** The collection: one namespace, or every namespace when `namespace` is undefined. */
export function collectionPath(type: ResourceType, namespace: string | undefined): string {
  if (type.namespaced && namespace) return `${groupPath(type)}/namespaces/${encodeURIComponent(namespace)}/${type.plural}`;
  return `${groupPath(type)}/${type.plural}`;
}

export function objectPath(type: ResourceType, namespace: string | undefined, name: string): string {
  if (type.namespaced && !namespace) throw new InvalidError(`${type.kind} is namespaced: a namespace is required`);
  if (!name) throw new InvalidError(`${type.kind}: metadata.name is required`);
  return `${collectionPath(type, namespace)}/${encodeURIComponent(name)}`;
}
