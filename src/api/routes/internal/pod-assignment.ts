import { defineRoute } from '../../route.js';
import { HttpError } from '../../http-error.js';
import { authenticatePod, podParamsSchema, type PodParams } from './pod-access.js';
import { invocationInput } from './invocation-input.js';
import { ArtifactIntegrityError, artifactChunks, readArtifactManifest } from '../../../functions/stored/artifact-store.js';
import { Kinds } from '../../../cluster/objects.js';
import type { ClusterPort } from '../../../cluster/port.js';
import { retryOnConflict } from '../../../cluster/retry.js';
import { watchUntil } from '../../../cluster/watch-until.js';
import { Annotations, Labels, type InvocationObject } from '../../../schemas/resources.js';
import type { PodObject } from '../../../schemas/pod.js';
import { preloadedArtifactOf } from '../../../controller/pods/pool-member.js';

const MAX_WAIT_SECONDS = 25;
/** Artifacts up to this size come with the assignment: the claimed member starts without a download of its own. */
export const INLINE_ARTIFACT_MAX_BYTES = 2 * 1024 * 1024;

export default defineRoute<PodParams, { waitSeconds: number; ready: boolean }, unknown, PodObject>({
  method: 'get',
  path: '/internal/v1/pods/:namespace/:name/assignment',
  operationId: 'Internal_podAssignment',
  summary:
    'A warm pool member waits to be claimed: the invocation input once it is (with the artifact, when small), else nothing after waitSeconds; it is ready to be handed out from its first ask that does not say ready=false (pod token required)',
  tags: ['internal'],
  auth: false,
  authorize: authenticatePod,
  request: {
    params: podParamsSchema,
    query: {
      type: 'object',
      properties: {
        waitSeconds: { type: 'integer', minimum: 0, maximum: MAX_WAIT_SECONDS, default: 20 },
        // A member still starting asks too, so that one claimed meanwhile learns of it at once.
        ready: { type: 'boolean', default: true },
      },
    },
  },
  responses: { 200: { description: 'The invocation input' }, 204: { description: 'Not claimed yet: ask again' } },
  async handle(ctx, { params, query, caller }, deps) {
    if (!caller.metadata.labels?.[Labels.pool]) throw new HttpError(409, `Pod ${params.name} is not a pool member: it fetches its input instead`);
    const member = query.ready ? await markReady(deps.cluster, caller) : caller;
    const abort = new AbortController();
    ctx.req.once('close', () => abort.abort());
    const claimed = await claimOf(deps.cluster, member, query.waitSeconds * 1000, abort.signal);
    ctx.set('cache-control', 'no-store');
    if (!claimed) {
      ctx.status = 204;
      return;
    }
    const inv = await deps.cluster.resource<InvocationObject>(Kinds.Invocation).get(params.namespace, claimed);
    if (!inv) throw new HttpError(404, `The invocation pod ${params.name} was claimed for no longer exists`);
    // Only the pod the invocation names runs it (the status names the member before the member is claimed).
    if (inv.status?.podName !== params.name) throw new HttpError(409, `The invocation pod ${params.name} was claimed for runs in pod ${inv.status?.podName ?? '(none yet)'}`);
    // A member that loaded the invocation's code ahead has its artifact already.
    const hasArtifact = preloadedArtifactOf(caller) === inv.spec.bundleConfigMap;
    const [input, artifact] = await Promise.all([invocationInput(deps, inv), hasArtifact ? undefined : inlineArtifact(deps.cluster, inv)]);
    ctx.body = artifact ? { ...input, artifactBase64: artifact.toString('base64') } : input;
  },
});

/** The invocation's artifact when it is small enough to come along; otherwise (or damaged) the member downloads it, and a damaged one fails there, saying so. */
async function inlineArtifact(cluster: ClusterPort, inv: InvocationObject): Promise<Buffer | undefined> {
  const manifest = await readArtifactManifest(cluster, inv.metadata.namespace!, inv.spec.bundleConfigMap);
  if (!manifest || manifest.size > INLINE_ARTIFACT_MAX_BYTES) return undefined;
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of artifactChunks(cluster, inv.metadata.namespace!, manifest)) chunks.push(chunk);
  } catch (err) {
    if (err instanceof ArtifactIntegrityError) return undefined;
    throw err;
  }
  return Buffer.concat(chunks);
}

const claimedFor = (pod: PodObject): string | undefined => pod.metadata.labels?.[Labels.invocationName];

/** The member's first wait says its browser and code loader are up: the pool may hand it out from now on. */
async function markReady(cluster: ClusterPort, member: PodObject): Promise<PodObject> {
  const pods = cluster.resource<PodObject>(Kinds.Pod);
  let first = true;
  return retryOnConflict(
    async () => {
      const pod = first ? member : await pods.get(member.metadata.namespace, member.metadata.name);
      first = false;
      if (!pod) throw new HttpError(404, `Pod ${member.metadata.name} no longer exists`);
      if (pod.metadata.annotations?.[Annotations.memberReady] || claimedFor(pod)) return pod;
      return pods.update({ ...pod, metadata: { ...pod.metadata, annotations: { ...pod.metadata.annotations, [Annotations.memberReady]: new Date().toISOString() } } });
    },
    { retries: 3 },
  );
}

/** The invocation the member is claimed for, as soon as it is; undefined after `waitMs` or when the pod goes. */
async function claimOf(cluster: ClusterPort, member: PodObject, waitMs: number, signal: AbortSignal): Promise<string | undefined> {
  const { latest, deleted } = await watchUntil(cluster.resource<PodObject>(Kinds.Pod), member, (pod) => !!claimedFor(pod), waitMs, signal);
  return deleted ? undefined : claimedFor(latest);
}
