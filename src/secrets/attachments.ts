// Attaching project secrets to Functions: the Function's spec.secrets lists the attached secret IDs.
// Updates use the store's optimistic concurrency (re-read and retry on conflict), so concurrent
// attaches, detaches and publishes never lose each other's change.
import { Kinds } from '../cluster/objects.js';
import { isConflict, isNotFound, type ClusterPort } from '../cluster/port.js';
import { retryOnConflict } from '../cluster/retry.js';
import { isDomainError, notFound } from '../domain/errors.js';
import type { FunctionObject } from '../schemas/resources.js';

/**
 * Applies `change` to the Function's attached IDs, as stored now, and writes the result; `change`
 * returns undefined when there is nothing to change (which makes attach and detach idempotent).
 */
async function changeAttachments(cluster: ClusterPort, fn: FunctionObject, change: (ids: string[]) => string[] | undefined): Promise<void> {
  const functions = cluster.resource<FunctionObject>(Kinds.Function);
  await retryOnConflict(
    async () => {
      // Decide on the stored object, not the caller's copy: a stale copy could make a needed write look like a no-op.
      const current = await functions.get(fn.metadata.namespace, fn.metadata.name);
      if (!current || current.metadata.uid !== fn.metadata.uid || current.metadata.deletionTimestamp) {
        throw notFound(`Function ${fn.metadata.uid} does not exist in this project`);
      }
      const next = change(current.spec.secrets ?? []);
      if (next) await functions.update({ ...current, spec: { ...current.spec, secrets: next } });
    },
    // Deleted between the read and the write: the next read says so.
    { retriable: (err) => isConflict(err) || isNotFound(err) },
  );
}

export function attachSecret(cluster: ClusterPort, fn: FunctionObject, secretId: string): Promise<void> {
  const id = secretId.toLowerCase();
  return changeAttachments(cluster, fn, (ids) => (ids.includes(id) ? undefined : [...ids, id]));
}

export function detachSecret(cluster: ClusterPort, fn: FunctionObject, secretId: string): Promise<void> {
  const id = secretId.toLowerCase();
  return changeAttachments(cluster, fn, (ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : undefined));
}

/** Removes a deleted secret's ID from every Function of the project that still lists it. */
export async function detachFromAllFunctions(cluster: ClusterPort, project: string, secretId: string): Promise<void> {
  const { items } = await cluster.resource<FunctionObject>(Kinds.Function).list(project);
  for (const fn of items) {
    if (!(fn.spec.secrets ?? []).includes(secretId)) continue;
    try {
      await detachSecret(cluster, fn, secretId);
    } catch (err) {
      // A Function deleted meanwhile has nothing left to detach.
      if (!isDomainError(err, 'not-found')) throw err;
    }
  }
}
