import { defineRoute } from '../../route.js';
import { authorizePod, podParamsSchema, type PodOwner, type PodParams } from './pod-access.js';
import type { BuildInput } from '../../../schemas/reports.js';
import { invocationInput } from './invocation-input.js';

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
  async handle(ctx, { caller: owner }, deps) {
    if (owner.kind === 'build') {
      const input: BuildInput = { kind: 'build', buildId: owner.build.metadata.name, entrypoint: owner.build.spec.entrypoint };
      ctx.body = input;
      return;
    }
    const input = await invocationInput(deps, owner.invocation);
    ctx.set('cache-control', 'no-store');
    ctx.body = input;
  },
});
