// Pure functions from a Build or Invocation to the Pod that runs it. One container runs the
// agent (which starts Chromium or the build); user code only ever runs inside these pods.
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../../cluster/objects.js';
import { Annotations, Labels, Roles, type BuildObject, type InvocationObject, type LaunchShape, type PodResources } from '../../schemas/resources.js';
import { launchShapeOf, viewportValue } from '../../schemas/launch-shape.js';
import { artifactSha256Of } from '../../functions/stored/artifact-store.js';
import { AGENT_CONTAINER, type Container, type EnvVar, type PodObject } from '../../schemas/pod.js';
import { POD_GRACE_SECONDS } from '../../schemas/deadlines.js';
import { memoryBytes } from '../../schemas/quantities.js';
import { POD_TOKEN_KEY, podTokenSecretName } from './token-secret.js';
import { chromiumArguments } from '../../runtime/chromium/local-chromium-provider.js';
import { PodEnv } from '../../schemas/pod-env.js';

export interface PodTemplateSettings {
  /** Node the pod is bound to (the local node agent's name); unset leaves it to a scheduler. */
  nodeName?: string;
  /** Base URL the agents use to reach the control plane. */
  controlUrl: string;
  /** Signs pod tokens (the reconcilers put each pod's token in its token Secret). */
  podTokenSecret: string;
  image: string;
  /** Variables build pods get (the build agent's time limits and npm settings, as the operator set them). */
  buildPodEnv?: Record<string, string>;
  /** Run Chromium as its own container of the browser pod (clusters); off: the agent launches it. */
  chromiumSidecar?: boolean;
  /** The Chromium browser pods run (their BROWSERFN_CHROMIUM_PATH; the sidecar's flags follow its build); unset: the image's. */
  chromiumPath?: string;
  /** A browser pod's memory limit and the size of its /dev/shm (quantities; unset: DEFAULT_BROWSER_MEMORY). */
  browserMemory?: BrowserMemory;
  /** sizeLimit of each of a browser pod's folders on disk, /work and /tmp (a quantity; unset: DEFAULT_BROWSER_DISK). */
  browserDisk?: string;
}

export interface BrowserMemory {
  /** limits.memory of the container that runs Chromium, unless a pool names its own. */
  limit: string;
  /** sizeLimit of the pod's memory-backed /dev/shm (counted against the limit by the kubelet). */
  shm: string;
}

export const DEFAULT_BROWSER_MEMORY: BrowserMemory = { limit: '2Gi', shm: '512Mi' };
export const DEFAULT_BROWSER_DISK = '2Gi';
/** A build's folders hold the project's node_modules. */
const BUILD_DISK = '4Gi';
const DEFAULT_BROWSER_REQUEST = '512Mi';
/** The CPU a browser pod (or pool member) requests unless its pool names its own. */
export const DEFAULT_BROWSER_CPU_REQUEST = '250m';
export const SHM_VOLUME = 'dshm';

/** The CDP port of a browser pod's Chromium sidecar, on the pod's own loopback. */
export const SIDECAR_CDP_PORT = '9222';
/** The port of a proxied pod's session proxy when Chromium is a sidecar (which needs it before the agent runs). */
export const SIDECAR_PROXY_PORT = '9224';

export const browserPodName = (inv: InvocationObject, attempt: number): string => `${inv.metadata.name}-a${attempt}`;
export const buildPodName = (build: BuildObject): string => `${build.metadata.name}-build`;

export function browserPod(inv: InvocationObject, attempt: number, settings: PodTemplateSettings): PodObject {
  const extraEnv: EnvVar[] = [];
  // The agent refuses an artifact that does not hash to this, whoever hands it over.
  const artifactSha256 = artifactSha256Of(inv.spec.bundleConfigMap);
  if (artifactSha256) extraEnv.push({ name: PodEnv.artifactSha256, value: artifactSha256 });
  const labels = { [Labels.invocationName]: inv.metadata.name, [Labels.functionUid]: inv.spec.functionUid, [Labels.sessionId]: inv.spec.sessionId };
  const deadline = inv.spec.timeoutSeconds + POD_GRACE_SECONDS;
  const pod = browserPodFor(inv, browserPodName(inv, attempt), launchShapeOf(inv.spec.sessionConfig), undefined, deadline, settings, extraEnv, labels);
  return withArtifact(pod, inv);
}

/**
 * A browser pod as `owner` (an Invocation, or a BrowserPool for a warm member) runs it: the agent,
 * and in clusters Chromium as its own container. `resources` are the browser's (the agent's own
 * when it launches Chromium itself).
 */
export function browserPodFor(
  owner: InvocationObject | KubeObject,
  name: string,
  launch: LaunchShape,
  resources: PodResources | undefined,
  deadlineSeconds: number,
  settings: PodTemplateSettings,
  extraEnv: EnvVar[],
  labels: Record<string, string>,
): PodObject {
  const memory = settings.browserMemory ?? DEFAULT_BROWSER_MEMORY;
  const limit = resources?.limits?.memory ?? memory.limit;
  const limits: Record<string, string> = { memory: limit, ...(resources?.limits?.cpu ? { cpu: resources.limits.cpu } : {}) };
  const browserResources = { requests: { cpu: DEFAULT_BROWSER_CPU_REQUEST, memory: smaller(DEFAULT_BROWSER_REQUEST, limit), ...resources?.requests }, limits };
  const shm = smaller(memory.shm, limit);
  const viewport = viewportValue(launch);
  // The session proxy's port: any free one for a Chromium the agent launches, a known one for a sidecar.
  const proxyPort = launch.proxied ? { name: PodEnv.proxyPort, value: settings.chromiumSidecar ? SIDECAR_PROXY_PORT : '0' } : undefined;
  const chromiumPath = settings.chromiumPath ? [{ name: PodEnv.chromiumPath, value: settings.chromiumPath }] : [];
  const env = [...extraEnv, ...(viewport ? [{ name: PodEnv.viewport, value: viewport }] : []), ...(proxyPort ? [proxyPort] : []), ...chromiumPath];
  const disk = settings.browserDisk ?? DEFAULT_BROWSER_DISK;
  if (!settings.chromiumSidecar) return withShm(podFor(owner, name, 'pod-agent', Roles.browserPod, deadlineSeconds, settings, env, labels, browserResources, disk), shm);
  const cdpPort = { name: PodEnv.cdpPort, value: SIDECAR_CDP_PORT };
  const pod = podFor(owner, name, 'pod-agent', Roles.browserPod, deadlineSeconds, settings, [...env, cdpPort], labels, { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } }, disk);
  const agent = pod.spec.containers[0];
  pod.spec.containers.unshift({
    name: 'chromium',
    image: settings.image,
    command: ['chromium', ...chromiumArguments('/work/chromium/profile', launch.viewport, `$(${cdpPort.name})`, { executablePath: settings.chromiumPath, ...(proxyPort ? { proxyServer: `http://127.0.0.1:$(${proxyPort.name})` } : {}) })],
    env: [cdpPort, ...(proxyPort ? [proxyPort] : []), ...chromiumPath, { name: 'HOME', value: '/work/chromium' }],
    resources: browserResources,
    securityContext: agent.securityContext,
    volumeMounts: agent.volumeMounts,
  });
  return withShm(pod, shm);
}

/**
 * Chromium's shared memory: a memory-backed emptyDir at /dev/shm (a container's own is 64 MiB, which
 * crashes renderers); its sizeLimit counts against the pod's memory, and no pod sees another's.
 */
function withShm(pod: PodObject, sizeLimit: string): PodObject {
  pod.spec.volumes = [...(pod.spec.volumes ?? []), { name: SHM_VOLUME, emptyDir: { medium: 'Memory', sizeLimit } }];
  // The containers share one volumeMounts list (see browserPodFor).
  const mounts = new Set(pod.spec.containers.map((c) => c.volumeMounts).filter((m) => m !== undefined));
  for (const list of mounts) list.push({ name: SHM_VOLUME, mountPath: '/dev/shm' });
  return pod;
}

const smaller = (a: string, b: string): string => (memoryBytes(a) <= memoryBytes(b) ? a : b);

/** Names the artifact for a node agent, which hands the pod a verified copy from its cache. */
function withArtifact(pod: PodObject, inv: InvocationObject): PodObject {
  pod.metadata.annotations = { ...pod.metadata.annotations, [Annotations.artifact]: inv.spec.bundleConfigMap };
  return pod;
}

export function buildPod(build: BuildObject, settings: PodTemplateSettings): PodObject {
  const env = Object.entries(settings.buildPodEnv ?? {}).map(([name, value]) => ({ name, value }));
  return podFor(build, buildPodName(build), 'build-agent', Roles.buildPod, 15 * 60, settings, env, {
    [Labels.buildName]: build.metadata.name,
  }, { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi' } }, BUILD_DISK);
}

function podFor(
  owner: KubeObject,
  name: string,
  agent: 'pod-agent' | 'build-agent',
  role: string,
  deadlineSeconds: number,
  settings: PodTemplateSettings,
  extraEnv: EnvVar[],
  labels: Record<string, string>,
  resources: Container['resources'],
  /** sizeLimit of each of the pod's folders: past it the kubelet (or the node agent) evicts the pod. */
  diskSizeLimit: string,
): PodObject {
  const namespace = owner.metadata.namespace!;
  return newObject<PodObject>(Kinds.Pod, { name, namespace, labels: { ...labels, [Labels.role]: role }, ownerReferences: [ownerReferenceTo(owner)] }, {
    spec: {
      nodeName: settings.nodeName,
      restartPolicy: 'Never',
      activeDeadlineSeconds: deadlineSeconds,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      securityContext: { runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: AGENT_CONTAINER,
          image: settings.image,
          command: ['browserfn', agent],
          env: [
            { name: PodEnv.controlUrl, value: settings.controlUrl },
            { name: PodEnv.namespace, value: namespace },
            { name: PodEnv.podName, value: name },
            // Bound to the pod's UID, so it can only be made once the pod exists: see token-secret.ts.
            { name: PodEnv.podToken, valueFrom: { secretKeyRef: { name: podTokenSecretName(name), key: POD_TOKEN_KEY } } },
            { name: PodEnv.podDir, value: '/work' },
            ...extraEnv,
          ],
          resources,
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          // The root filesystem is read-only: Chromium, npm and Node need a writable /tmp of their own.
          volumeMounts: [{ name: 'work', mountPath: '/work' }, { name: 'tmp', mountPath: '/tmp' }],
        },
      ],
      volumes: [
        { name: 'work', emptyDir: { sizeLimit: diskSizeLimit } },
        { name: 'tmp', emptyDir: { sizeLimit: diskSizeLimit } },
      ],
    },
  });
}
