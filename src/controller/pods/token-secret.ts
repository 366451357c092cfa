// A pod's token lives in a Secret of its own, `<pod>-token`, owned by the Pod (so it goes with it)
// and referenced from the pod's env with secretKeyRef: whoever can read Pods does not see it. It is
// made right after the Pod, once the Pod's UID — which the token is bound to — is known.
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../../cluster/objects.js';
import { isAlreadyExists, isNotFound, type ClusterPort } from '../../cluster/port.js';
import { Labels, Roles } from '../../schemas/resources.js';
import type { PodObject } from '../../schemas/pod.js';
import { issuePodToken } from '../../runtime/pod-token.js';

export const POD_TOKEN_KEY = 'token';
export const POD_TOKEN_SECRET_TYPE = 'browserfn.dev/pod-token';
export const podTokenSecretName = (podName: string): string => `${podName}-token`;

/**
 * Time a pod may spend before its deadline starts counting (scheduling, image pulls); the token
 * expires this long after the pod's activeDeadlineSeconds, counted from when it is issued.
 */
export const TOKEN_START_ALLOWANCE_SECONDS = 300;

export function podTokenSecret(pod: PodObject, signingSecret: string, nowMs = Date.now()): KubeObject {
  const exp = Math.floor(nowMs / 1000) + (pod.spec.activeDeadlineSeconds ?? 0) + TOKEN_START_ALLOWANCE_SECONDS;
  const token = issuePodToken(signingSecret, { namespace: pod.metadata.namespace!, name: pod.metadata.name, uid: pod.metadata.uid!, exp });
  return newObject<KubeObject>(
    Kinds.Secret,
    {
      name: podTokenSecretName(pod.metadata.name),
      namespace: pod.metadata.namespace,
      labels: { [Labels.role]: Roles.podToken },
      ownerReferences: [ownerReferenceTo(pod)],
    },
    { type: POD_TOKEN_SECRET_TYPE, data: { [POD_TOKEN_KEY]: Buffer.from(token).toString('base64') } },
  );
}

/** Creates the token Secret of a just-created pod; one left by an earlier pod of that name is replaced. */
export async function ensurePodTokenSecret(cluster: ClusterPort, pod: PodObject, signingSecret: string): Promise<void> {
  const secrets = cluster.resource(Kinds.Secret);
  const wanted = podTokenSecret(pod, signingSecret);
  const existing = await secrets.get(pod.metadata.namespace!, wanted.metadata.name);
  if (existing?.metadata.ownerReferences?.some((ref) => ref.uid === pod.metadata.uid)) return;
  try {
    if (existing) await secrets.update({ ...wanted, metadata: { ...wanted.metadata, resourceVersion: existing.metadata.resourceVersion } });
    else await secrets.create(wanted);
  } catch (err) {
    // The old pod's Secret was garbage-collected meanwhile: make ours.
    if (existing && isNotFound(err)) await secrets.create(wanted);
    else if (!isAlreadyExists(err)) throw err;
  }
}

/** Creates the pod (an existing one of that name is kept), then its token Secret. */
export async function createPodWithToken(cluster: ClusterPort, pod: PodObject, signingSecret: string): Promise<PodObject> {
  const pods = cluster.resource<PodObject>(Kinds.Pod);
  let created: PodObject | undefined;
  try {
    created = await pods.create(pod);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    created = await pods.get(pod.metadata.namespace!, pod.metadata.name);
  }
  if (!created || created.metadata.deletionTimestamp) return pod;
  await ensurePodTokenSecret(cluster, created, signingSecret);
  return created;
}
