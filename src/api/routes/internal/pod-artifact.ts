import { Readable } from 'node:stream';
import { defineRoute } from '../../route.js';
import { HttpError } from '../../http-error.js';
import { authenticatePod, ownerOfPod, podParamsSchema, type PodParams, type PodRequest } from './pod-access.js';
import type { ApiDeps } from '../../deps.js';
import { Labels } from '../../../schemas/resources.js';
import { isIdleMember, preloadedArtifactOf } from '../../../controller/pods/pool-member.js';
import { ArtifactIntegrityError, artifactChunks, readArtifactManifest } from '../../../functions/stored/artifact-store.js';
import { ARTIFACT_SHA256_HEADER } from '../../../schemas/reports.js';

/**
 * The artifact the pod may read, by its manifest's name: its Build's upload or its Invocation's
 * bundle, or, for a pool member not yet claimed, the code its pool had it load ahead.
 */
async function artifactOfPod(ctx: PodRequest, params: PodParams, deps: ApiDeps): Promise<string> {
  const pod = await authenticatePod(ctx, params, deps);
  const preloaded = pod.metadata.labels?.[Labels.pool] && isIdleMember(pod) ? preloadedArtifactOf(pod) : undefined;
  if (preloaded) return preloaded;
  const owner = await ownerOfPod(pod, params, deps);
  return owner.kind === 'build' ? owner.build.spec.archiveConfigMap : owner.invocation.spec.bundleConfigMap;
}

export default defineRoute<PodParams, unknown, unknown, string>({
  method: 'get',
  path: '/internal/v1/pods/:namespace/:name/artifact',
  operationId: 'Internal_podArtifact',
  summary:
    "The pod's own artifact, streamed from its chunks: the uploaded archive (build pods), the built artifact (browser pods), or the one its pool loads ahead (pool members not yet claimed)",
  tags: ['internal'],
  auth: false,
  authorize: artifactOfPod,
  request: { params: podParamsSchema },
  responses: { 200: { description: 'The bytes; x-artifact-sha256 carries the sha256 the manifest records, which the pod checks' } },
  async handle(ctx, { params, caller: name }, deps) {
    // Only the artifact the pod's own Build, Invocation or pool names, in the pod's own namespace.
    const manifest = await readArtifactManifest(deps.cluster, params.namespace, name);
    if (!manifest) throw new HttpError(404, 'The artifact of this pod no longer exists');
    const chunks = artifactChunks(deps.cluster, params.namespace, manifest);
    // The first chunk is read (and checked) before the answer starts, so a damaged one is an error the pod can show.
    const first = await chunks.next().catch((err: unknown) => {
      if (err instanceof ArtifactIntegrityError) throw new HttpError(500, err.message);
      throw err;
    });
    ctx.type = 'application/octet-stream';
    ctx.length = manifest.size;
    ctx.set(ARTIFACT_SHA256_HEADER, manifest.sha256);
    ctx.set('cache-control', 'no-store');
    const body = Readable.from(
      (async function* () {
        if (!first.done) yield first.value;
        yield* chunks;
      })(),
    );
    // A chunk gone missing midway ends the response short; the pod then refuses what it got.
    body.on('error', (err) => deps.log.warn({ err, namespace: params.namespace, artifact: name }, 'artifact stream broke off'));
    ctx.body = body;
  },
});
