// Pure functions from a Build or Invocation to the Pod that runs it. One container runs the
// agent (which starts Chromium or the build); user code only ever runs inside these pods.
import { Kinds, newObject, ownerReferenceTo } from '../../cluster/objects.js';
import { Annotations, Labels, Roles, type BuildObject, type InvocationObject } from '../../schemas/resources.js';
import { artifactSha256Of } from '../../functions/stored/artifact-store.js';
import type { Container, EnvVar, PodObject } from '../../schemas/pod.js';
import { POD_GRACE_SECONDS } from '../../schemas/deadlines.js';
import { POD_TOKEN_KEY, podTokenSecretName } from './token-secret.js';
import { chromiumArguments } from '../../runtime/chromium/local-chromium-provider.js';

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
}

/** The CDP port of a browser pod's Chromium sidecar, on the pod's own loopback. */
export const SIDECAR_CDP_PORT = '9222';

export const browserPodName = (inv: InvocationObject, attempt: number): string => `${inv.metadata.name}-a${attempt}`;
export const buildPodName = (build: BuildObject): string => `${build.metadata.name}-build`;

export function browserPod(inv: InvocationObject, attempt: number, settings: PodTemplateSettings): PodObject {
  const name = browserPodName(inv, attempt);
  const viewport = (inv.spec.sessionConfig.browserSettings as { viewport?: { width?: number; height?: number } } | undefined)?.viewport;
  const extraEnv = viewport?.width && viewport.height ? [{ name: 'BROWSERFN_VIEWPORT', value: `${viewport.width}x${viewport.height}` }] : [];
  // The agent refuses an artifact that does not hash to this, whoever hands it over.
  const artifactSha256 = artifactSha256Of(inv.spec.bundleConfigMap);
  if (artifactSha256) extraEnv.push({ name: 'BROWSERFN_ARTIFACT_SHA256', value: artifactSha256 });
  const labels = { [Labels.invocationName]: inv.metadata.name, [Labels.functionUid]: inv.spec.functionUid, [Labels.sessionId]: inv.spec.sessionId };
  const deadline = inv.spec.timeoutSeconds + POD_GRACE_SECONDS;
  if (!settings.chromiumSidecar) {
    return withArtifact(podFor(inv, name, 'pod-agent', Roles.browserPod, deadline, settings, extraEnv, labels, { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi' } }), inv);
  }
  const cdpPort = { name: 'BROWSERFN_CDP_PORT', value: SIDECAR_CDP_PORT };
  const pod = podFor(inv, name, 'pod-agent', Roles.browserPod, deadline, settings, [...extraEnv, cdpPort], labels, { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } });
  const agent = pod.spec.containers[0];
  pod.spec.containers.unshift({
    name: 'chromium',
    image: settings.image,
    command: ['chromium', ...chromiumArguments('/work/chromium/profile', viewport, `$(${cdpPort.name})`)],
    env: [cdpPort, { name: 'HOME', value: '/work/chromium' }],
    resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi' } },
    securityContext: agent.securityContext,
    volumeMounts: agent.volumeMounts,
  });
  return withArtifact(pod, inv);
}

/** Names the artifact for a node agent, which hands the pod a verified copy from its cache. */
function withArtifact(pod: PodObject, inv: InvocationObject): PodObject {
  pod.metadata.annotations = { ...pod.metadata.annotations, [Annotations.artifact]: inv.spec.bundleConfigMap };
  return pod;
}

export function buildPod(build: BuildObject, settings: PodTemplateSettings): PodObject {
  const env = Object.entries(settings.buildPodEnv ?? {}).map(([name, value]) => ({ name, value }));
  return podFor(build, buildPodName(build), 'build-agent', Roles.buildPod, 15 * 60, settings, env, {
    [Labels.buildName]: build.metadata.name,
  }, { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi' } });
}

function podFor(
  owner: InvocationObject | BuildObject,
  name: string,
  agent: 'pod-agent' | 'build-agent',
  role: string,
  deadlineSeconds: number,
  settings: PodTemplateSettings,
  extraEnv: EnvVar[],
  labels: Record<string, string>,
  resources: Container['resources'],
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
          name: 'agent',
          image: settings.image,
          command: ['browserfn', agent],
          env: [
            { name: 'BROWSERFN_CONTROL_URL', value: settings.controlUrl },
            { name: 'BROWSERFN_POD_NAMESPACE', value: namespace },
            { name: 'BROWSERFN_POD_NAME', value: name },
            // Bound to the pod's UID, so it can only be made once the pod exists: see token-secret.ts.
            { name: 'BROWSERFN_POD_TOKEN', valueFrom: { secretKeyRef: { name: podTokenSecretName(name), key: POD_TOKEN_KEY } } },
            { name: 'BROWSERFN_POD_DIR', value: '/work' },
            ...extraEnv,
          ],
          resources,
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          volumeMounts: [{ name: 'work', mountPath: '/work' }],
        },
      ],
      volumes: [{ name: 'work', emptyDir: {} }],
    },
  });
}
