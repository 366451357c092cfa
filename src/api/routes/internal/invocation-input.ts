// What a browser pod is told about its invocation, whether it fetches it (cold pods) or is handed
// it when claimed (pool members).
import type { ApiDeps } from '../../deps.js';
import type { InvocationObject } from '../../../schemas/resources.js';
import type { InvocationInput } from '../../../schemas/reports.js';
import { getFunctionObject } from '../../../functions/lookup.js';
import { resolveFunctionSecrets } from '../../../secrets/resolve.js';
import { REGION } from '../../../functions/region.js';
import { artifactSha256Of } from '../../../functions/stored/artifact-store.js';
import { usesOperatorProxy } from '../../../schemas/session-proxies.js';

export async function invocationInput(deps: ApiDeps, inv: InvocationObject): Promise<InvocationInput> {
  const namespace = inv.metadata.namespace!;
  const fn = await getFunctionObject(deps.cluster, namespace, inv.spec.functionUid);
  return {
    kind: 'invocation',
    invocationId: inv.metadata.name,
    functionName: inv.spec.functionName,
    params: inv.spec.params,
    sessionId: inv.spec.sessionId,
    sessionConfig: inv.spec.sessionConfig,
    timeoutSeconds: inv.spec.timeoutSeconds,
    region: REGION,
    // Resolved at start so attach/detach take effect from the next invocation.
    secrets: fn ? await resolveFunctionSecrets(deps.cluster, namespace, fn) : {},
    artifactSha256: artifactSha256Of(inv.spec.bundleConfigMap),
    recordingMaxBytes: deps.settings.recordingMaxBytes,
    ...(deps.settings.browserProxy && usesOperatorProxy(inv.spec.sessionConfig) ? { browserProxy: deps.settings.browserProxy } : {}),
  };
}
