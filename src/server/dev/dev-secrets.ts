// Gives the Functions of a dev build exactly the secrets of the local file: each is stored as a
// project secret (created, or its value updated) and attached, the ones no longer in the file detached.
import type { ClusterPort } from '../../cluster/port.js';
import type { FunctionObject } from '../../schemas/resources.js';
import { attachSecret, detachSecret } from '../../secrets/attachments.js';
import { createSecret, listSecrets, updateSecretValue } from '../../secrets/store.js';

export async function applyLocalSecrets(cluster: ClusterPort, project: string, secrets: Map<string, string>, functions: FunctionObject[]): Promise<void> {
  const stored = new Map((await listSecrets(cluster, project)).map((s) => [s.meta.secretKey, s.meta.id]));
  const wanted: string[] = [];
  for (const [name, value] of secrets) {
    const id = stored.get(name);
    if (id) await updateSecretValue(cluster, project, id, value);
    wanted.push(id ?? (await createSecret(cluster, project, name, value)).id);
  }
  for (const fn of functions) {
    for (const id of wanted) await attachSecret(cluster, fn, id);
    for (const id of fn.spec.secrets ?? []) if (!wanted.includes(id)) await detachSecret(cluster, fn, id);
  }
}
