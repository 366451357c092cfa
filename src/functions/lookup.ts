// Finding Functions by their API ID (metadata.uid) inside one project (namespace).
import { Kinds } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import { invalid, notFound } from '../domain/errors.js';
import type { FunctionObject } from '../schemas/resources.js';
import { isUuid } from '../schemas/uuid.js';

export function assertUuid(value: string, what: string): void {
  if (!isUuid(value)) throw invalid(`Invalid ${what} "${value.slice(0, 64)}": expected a UUID such as 123e4567-e89b-12d3-a456-426614174000`);
}

/** The Function with this uid in the namespace, if any. */
export async function getFunctionObject(cluster: ClusterPort, namespace: string, uid: string): Promise<FunctionObject | undefined> {
  const { items } = await cluster.resource<FunctionObject>(Kinds.Function).list(namespace);
  return items.find((f) => f.metadata.uid === uid && !f.metadata.deletionTimestamp);
}

/** The Function with this ID in the project, or `not-found` (also when it exists in another project). */
export async function getFunctionById(cluster: ClusterPort, project: string, id: string): Promise<FunctionObject> {
  assertUuid(id, 'Function ID');
  const fn = await getFunctionObject(cluster, project, id.toLowerCase());
  if (!fn) throw notFound(`Function ${id} does not exist in this project`);
  return fn;
}
