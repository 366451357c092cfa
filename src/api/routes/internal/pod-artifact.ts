import { Kinds } from '../../../cluster/objects.js';
import { defineRoute } from '../../route.js';
import { HttpError } from '../../http-error.js';
import { authorizePod, podParamsSchema, type PodOwner, type PodParams } from './pod-access.js';
import { archiveName, readArchive } from '../../../functions/stored/upload-archive.js';
import { readBundle } from '../../../functions/stored/bundle.js';

export default defineRoute<PodParams, unknown, unknown, PodOwner>({
  method: 'get',
  path: '/internal/v1/pods/:namespace/:name/artifact',
  operationId: 'Internal_podArtifact',
  summary: 'The uploaded archive (build pods) or the gzip bundle (browser pods)',
  tags: ['internal'],
  auth: false,
  authorize: authorizePod,
  request: { params: podParamsSchema },
  responses: { 200: { description: 'Bytes' } },
  async handle(ctx, { params, caller: owner }, deps) {
    const configMaps = deps.cluster.resource(Kinds.ConfigMap);
    let data: string | undefined;
    if (owner.kind === 'build') {
      data = readArchive(await configMaps.get(params.namespace, archiveName(owner.build.metadata.name)));
    } else {
      data = readBundle(await configMaps.get(params.namespace, owner.invocation.spec.bundleConfigMap));
    }
    if (!data) throw new HttpError(404, 'The artifact of this pod no longer exists');
    ctx.type = 'application/gzip';
    ctx.body = Buffer.from(data, 'base64');
  },
});
