import { defineRoute } from '../../route.js';
import { idParams } from './schemas.js';
import { buildLogs, getBuild } from '../../../functions/builds.js';

export default defineRoute<{ build_id: string }, unknown, unknown>({
  method: 'get',
  path: '/v1/functions/builds/:build_id/logs',
  operationId: 'Functions_getBuildLogs',
  summary: 'The log of a build: install, bundle and introspection steps',
  tags: ['functions'],
  request: { params: idParams('build_id', 'Build ID') },
  responses: { 200: { description: '{logs, total}' }, 404: { description: 'No such build' } },
  async handle(ctx, { params }, deps) {
    const found = await getBuild(deps.cluster, deps.archive, ctx.state.project, params.build_id);
    const logs = await buildLogs(deps.cluster, deps.archive, found);
    ctx.body = { logs: logs.map(({ message, timestamp, level }) => ({ message, timestamp, level })), total: logs.length };
  },
});
