// Pods reach the control plane only through these routes, with a token bound to their Pod object.
import { Kinds } from '../../../cluster/objects.js';
import type { RouteContext } from '../../route.js';
import type { ApiDeps } from '../../deps.js';
import { HttpError } from '../../http-error.js';
import { verifyPodToken } from '../../../runtime/pod-token.js';
import { Labels, Roles, type BuildObject, type InvocationObject } from '../../../schemas/resources.js';
import type { PodObject } from '../../../schemas/pod.js';

export const podParamsSchema = {
  type: 'object',
  required: ['namespace', 'name'],
  properties: { namespace: { type: 'string', maxLength: 63 }, name: { type: 'string', maxLength: 253 } },
};

export interface PodParams {
  namespace: string;
  name: string;
}

/** Where the bearer token comes from: a route's context, or a WebSocket upgrade's headers. */
export type PodRequest = Pick<RouteContext, 'get'>;

export type PodOwner =
  | { kind: 'build'; pod: PodObject; build: BuildObject }
  | { kind: 'invocation'; pod: PodObject; invocation: InvocationObject };

/**
 * The bearer token's signature, pod name and expiry first (no store access), then the live Pod's
 * UID: the Pod the caller is.
 */
export async function authenticatePod(ctx: PodRequest, { namespace, name }: PodParams, deps: ApiDeps): Promise<PodObject> {
  const header = ctx.get('authorization');
  const token = header.startsWith('Bearer ') ? header.slice(7) : '';
  const check = verifyPodToken(deps.settings.podTokenSecret, token, { namespace, name });
  if (!check.ok) throw new HttpError(401, check.reason);
  const pod = await deps.cluster.resource<PodObject>(Kinds.Pod).get(namespace, name);
  if (!pod || pod.metadata.deletionTimestamp) throw new HttpError(404, `Pod ${namespace}/${name} no longer exists`);
  // A pod deleted and made again under the same name is another pod: the old token is worthless.
  if (pod.metadata.uid !== check.claims.uid) throw new HttpError(401, 'The pod token belongs to another pod of this name');
  return pod;
}

/** The `authorize` of the internal routes of a pod at work: the pod, then the Build or Invocation it runs. */
export async function authorizePod(ctx: PodRequest, params: PodParams, deps: ApiDeps): Promise<PodOwner> {
  return ownerOfPod(await authenticatePod(ctx, params, deps), params, deps);
}

/** The Build or Invocation an authenticated pod runs. */
export async function ownerOfPod(pod: PodObject, { namespace, name }: PodParams, deps: ApiDeps): Promise<PodOwner> {
  const labels = pod.metadata.labels ?? {};
  if (labels[Labels.role] === Roles.buildPod) {
    const build = await deps.cluster.resource<BuildObject>(Kinds.Build).get(namespace, labels[Labels.buildName] ?? '');
    if (!build) throw new HttpError(404, `The build of pod ${name} no longer exists`);
    return { kind: 'build', pod, build };
  }
  if (labels[Labels.pool] && !labels[Labels.invocationName]) throw new HttpError(409, `Pod ${name} is a pool member that has not been claimed: it waits for its assignment first`);
  const invocation = await deps.cluster.resource<InvocationObject>(Kinds.Invocation).get(namespace, labels[Labels.invocationName] ?? '');
  if (!invocation) throw new HttpError(404, `The invocation of pod ${name} no longer exists`);
  return { kind: 'invocation', pod, invocation };
}
