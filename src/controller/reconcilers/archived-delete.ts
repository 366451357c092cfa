// The last step of archiving: delete the object exactly as it was archived. The uid and
// resourceVersion preconditions make a changed or re-created object a conflict (the next reconcile
// archives what is stored then); one already deleted is done.
import type { KubeObject } from '../../cluster/objects.js';
import { isNotFound, type ResourceClient } from '../../cluster/port.js';

export async function deleteArchived(client: ResourceClient, obj: KubeObject): Promise<void> {
  try {
    await client.delete(obj.metadata.namespace, obj.metadata.name, { uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
