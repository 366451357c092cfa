// Warm pool members: browser pods started ahead for a BrowserPool, whose agent launches Chromium
// and the code loader and then waits for an assignment. Claiming one turns it into the browser pod
// of an invocation: the same labels, owner and artifact a cold browser pod gets.
import { randomBytes } from 'node:crypto';
import { ownerReferenceTo } from '../../cluster/objects.js';
import { Annotations, Labels, type BrowserPoolObject, type InvocationObject } from '../../schemas/resources.js';
import type { EnvVar, PodObject } from '../../schemas/pod.js';
import { POD_GRACE_SECONDS } from '../../schemas/deadlines.js';
import { SESSION_TIMEOUT_MAX_SECONDS } from '../../schemas/session-config.js';
import { launchHash } from '../../schemas/launch-shape.js';
import { artifactSha256Of } from '../../functions/stored/artifact-store.js';
import { browserPodFor, type PodTemplateSettings } from './templates.js';
import { PodEnv } from '../../schemas/pod-env.js';

export const DEFAULT_MAX_AGE_SECONDS = 1800;
export const DEFAULT_IDLE_SECONDS = 600;

/** What members are started with: one made before it changed is replaced. */
export const poolLaunchHash = (pool: BrowserPoolObject): string => launchHash(pool.spec.launch ?? {}, pool.spec.resources, pool.spec.preload, pool.spec.preloadArtifact);

/** When the member was made, by the controller's clock (which its age is judged by). */
export const memberCreatedAt = (pod: PodObject): number => Date.parse(pod.metadata.annotations?.[Annotations.memberCreatedAt] ?? pod.metadata.creationTimestamp ?? '');

export function poolMemberPod(pool: BrowserPoolObject, settings: PodTemplateSettings, now: Date, suffix = randomBytes(4).toString('hex')): PodObject {
  // Idle no longer than maxAge, then serving at most the longest timeout.
  const deadline = (pool.spec.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS) + SESSION_TIMEOUT_MAX_SECONDS + POD_GRACE_SECONDS;
  const labels = { [Labels.pool]: pool.metadata.name, [Labels.launchHash]: poolLaunchHash(pool) };
  const env: EnvVar[] = [{ name: PodEnv.poolMember, value: '1' }, ...(pool.spec.preload ? [{ name: PodEnv.preload, value: pool.spec.preload.join(',') }] : [])];
  // A member that loads its pool's code ahead gets it the way a cold pod does: named by hash, handed over or downloaded.
  const preloadSha256 = pool.spec.preloadArtifact ? artifactSha256Of(pool.spec.preloadArtifact) : undefined;
  if (preloadSha256) env.push({ name: PodEnv.artifactSha256, value: preloadSha256 });
  const pod = browserPodFor(pool, `${pool.metadata.name}-${suffix}`, pool.spec.launch ?? {}, pool.spec.resources, deadline, settings, env, labels);
  pod.metadata.annotations = {
    ...pod.metadata.annotations,
    [Annotations.memberCreatedAt]: now.toISOString(),
    ...(preloadSha256 ? { [Annotations.artifact]: pool.spec.preloadArtifact! } : {}),
  };
  return pod;
}

/** The artifact whose code the member loaded ahead, if it did: it serves only invocations of that artifact. */
export const preloadedArtifactOf = (pod: PodObject): string | undefined =>
  pod.spec.containers.some((c) => c.env?.some((e) => e.name === PodEnv.artifactSha256)) ? pod.metadata.annotations?.[Annotations.artifact] : undefined;

/** Whether a member still waits for an invocation. */
export const isIdleMember = (pod: PodObject): boolean => !pod.metadata.labels?.[Labels.invocationName];

/** The member as it serves `inv`: written with the member's resourceVersion, so only one claim wins. */
export function claimedMember(member: PodObject, inv: InvocationObject, now: Date): PodObject {
  return {
    ...member,
    metadata: {
      ...member.metadata,
      labels: {
        ...member.metadata.labels,
        [Labels.invocationName]: inv.metadata.name,
        [Labels.functionUid]: inv.spec.functionUid,
        [Labels.sessionId]: inv.spec.sessionId,
      },
      annotations: {
        ...member.metadata.annotations,
        [Annotations.artifact]: inv.spec.bundleConfigMap,
        [Annotations.claimedAt]: now.toISOString(),
      },
      // The invocation owns it now: deleting the invocation takes its pod along, and the pool no longer counts it as idle.
      ownerReferences: [ownerReferenceTo(inv)],
    },
  };
}
