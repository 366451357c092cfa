import { defineRoute } from '../../route.js';
import { authorizePod, podParamsSchema, type PodOwner, type PodParams } from './pod-access.js';
import type { BuildInput, InvocationInput } from '../../../schemas/reports.js';
import { getFunctionObject } from '../../../functions/lookup.js';
import { resolveFunctionSecrets } from '../../../secrets/resolve.js';
import { REGION } from '../../../functions/region.js';

export default defineRoute<PodParams, unknown, unknown, PodOwner>({
  method: 'get',
  path: '/internal/v1/pods/:namespace/:name/input',
  operationId: 'Internal_podInput',
  summary: 'What a build or browser pod is to run (pod token required)',
  tags: ['internal'],
  auth: false,
  authorize: authorizePod,
  request: { params: podParamsSchema },
  responses: { 200: { description: 'The pod input' } },
  async handle(ctx, { params, caller: owner }, deps) {
    if (owner.kind === 'build') {
      const input: BuildInput = { kind: 'build', buildId: owner.build.metadata.name, entrypoint: owner.build.spec.entrypoint };
      ctx.body = input;
      return;
    }
    const inv = owner.invocation;
    const fn = await getFunctionObject(deps.cluster, params.namespace, inv.spec.functionUid);
    const input: InvocationInput = {
      kind: 'invocation',
      invocationId: inv.metadata.name,
      functionName: inv.spec.functionName,
      params: inv.spec.params,
      sessionId: inv.spec.sessionId,
      sessionConfig: inv.spec.sessionConfig,
      timeoutSeconds: inv.spec.timeoutSeconds,
      region: REGION,
      // Resolved at start so attach/detach take effect from the next invocation.
      secrets: fn ? await resolveFunctionSecrets(deps.cluster, params.namespace, fn) : {},
    };
    ctx.set('cache-control', 'no-store');
    ctx.body = input;
  },
});
