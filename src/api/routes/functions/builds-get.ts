import { Kinds } from '../../../cluster/objects.js';
import { defineRoute } from '../../route.js';
import { idParams } from './schemas.js';
import { getBuild } from '../../../functions/builds.js';
import { buildView } from '../../../functions/views.js';
import type { FunctionObject } from '../../../schemas/resources.js';

export default defineRoute<{ build_id: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/functions/builds/:build_id',
  operationId: 'Functions_getBuild',
  summary: 'Get a build result: its status and the Function(s) it built or updated',
  tags: ['functions'],
  request: { params: idParams('build_id', 'Build ID') },
  responses: { 200: { description: 'The build' }, 400: { description: 'Malformed ID' }, 404: { description: 'No such build' } },
  async handle(ctx, { params }, deps) {
    const { build } = await getBuild(deps.cluster, deps.archive, ctx.state.project, params.build_id);
    const functions = build.status?.builtFunctions?.length
      ? (await deps.cluster.resource<FunctionObject>(Kinds.Function).list(ctx.state.project)).items
      : [];
    ctx.body = buildView(build, functions);
  },
});
