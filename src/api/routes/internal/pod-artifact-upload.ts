import { defineRoute } from '../../route.js';
import { HttpError } from '../../http-error.js';
import { authorizePod, podParamsSchema, type PodOwner, type PodParams } from './pod-access.js';
import { ArtifactIntegrityError, ArtifactTooLargeError, writeArtifact } from '../../../functions/stored/artifact-store.js';
import { ARTIFACT_SHA256_HEADER } from '../../../schemas/reports.js';

export default defineRoute<PodParams, unknown, unknown, PodOwner>({
  method: 'put',
  path: '/internal/v1/pods/:namespace/:name/artifact',
  operationId: 'Internal_podArtifactUpload',
  summary: 'A build pod stores its built artifact (raw bytes, x-artifact-sha256 header), streamed into chunk ConfigMaps',
  tags: ['internal'],
  auth: false,
  authorize: authorizePod,
  request: { params: podParamsSchema },
  responses: {
    201: { description: 'Stored (or already stored): the manifest name, sha256 and size' },
    400: { description: 'The bytes do not hash to the announced sha256' },
    403: { description: 'Not a build pod, or its build has ended' },
    413: { description: 'Over BROWSERFN_MAX_ARTIFACT_BYTES' },
  },
  async handle(ctx, { params, caller: owner }, deps) {
    if (owner.kind !== 'build') throw new HttpError(403, 'Only build pods store artifacts');
    const phase = owner.build.status?.phase;
    if (phase === 'COMPLETED' || phase === 'FAILED') throw new HttpError(403, `The build has ended (${phase}); it takes no artifact`);
    const expectedSha256 = ctx.get(ARTIFACT_SHA256_HEADER).toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(expectedSha256)) throw new HttpError(400, `Send the artifact's sha256 (64 hex digits) in the ${ARTIFACT_SHA256_HEADER} header`);
    const limit = deps.settings.maxArtifactBytes;
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > limit) throw new HttpError(413, `The artifact is ${declared} bytes, over the ${limit}-byte limit (BROWSERFN_MAX_ARTIFACT_BYTES)`);
    try {
      const stored = await writeArtifact(deps.cluster, params.namespace, ctx.req as AsyncIterable<Buffer>, { owner: owner.build, maxBytes: limit, expectedSha256 });
      ctx.status = 201;
      ctx.body = stored;
    } catch (err) {
      if (err instanceof ArtifactTooLargeError) throw new HttpError(413, `The artifact is over the ${err.limit}-byte limit (BROWSERFN_MAX_ARTIFACT_BYTES): ${err.size} bytes or more arrived`);
      if (err instanceof ArtifactIntegrityError) throw new HttpError(400, err.message);
      throw err;
    }
  },
});
