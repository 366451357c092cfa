// The values a Function's invocation receives as ctx.secrets / context.secrets: secretKey → value of
// each secret attached to it now. Detached or deleted secrets are not included. Called when an
// invocation starts, so attach and detach take effect from the next invocation.
import type { ClusterPort } from '../cluster/port.js';
import type { FunctionObject } from '../schemas/resources.js';
import { secretValue } from './objects.js';
import { listSecrets } from './store.js';

export async function resolveFunctionSecrets(cluster: ClusterPort, project: string, fn: FunctionObject): Promise<Record<string, string>> {
  const attached = new Set((fn.spec.secrets ?? []).map((id) => id.toLowerCase()));
  if (attached.size === 0) return {};
  const stored = await listSecrets(cluster, project);
  // fromEntries defines own properties, so even a secret named __proto__ arrives as a plain key.
  return Object.fromEntries(stored.filter((s) => attached.has(s.meta.id)).map((s) => [s.meta.secretKey, secretValue(s.object)]));
}
