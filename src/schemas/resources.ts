// The browserfn.dev/v1alpha1 kinds: TypeScript shapes and the JSON Schemas that validate them.
// The same schemas feed the CRDs in crds/ and the façade's checks.
import type { Condition, KubeObject } from '../cluster/objects.js';
import type { RuntimePackage } from './runtime-packages.js';

export type BuildPhase = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';
export type InvocationPhase = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';

export interface Cause {
  code: string;
  message?: string;
}

/** One published version of a Function: what an invocation runs. */
export interface FunctionVersionSpec {
  /** Version ID (UUID), stable for the life of the version. */
  id: string;
  /** 1, 2, 3… per Function. */
  number: number;
  /** The Build that produced it (name of the Build object), absent for hand-written manifests. */
  buildName?: string;
  /** The built artifact's manifest ConfigMap (`artifact-<sha256>`, in the Function's namespace; see src/functions/stored/artifact-store.ts). */
  bundleConfigMap: string;
  sessionConfig?: Record<string, unknown>;
  parametersSchema?: Record<string, unknown>;
  /** The runtime packages its code imports; absent for versions built before it was recorded. */
  runtimePackages?: RuntimePackage[];
  createdAt: string;
}

export interface FunctionSpec {
  /** The logical name given to defineFn; unique per project. */
  name: string;
  /** The current version. */
  version?: FunctionVersionSpec;
  /** Hand-written manifests: handler source inline or in a ConfigMap (built by the controller). */
  source?: { inline?: string; configMapRef?: { name: string; key: string } };
  /** Project secrets (by secret ID) attached to this Function. */
  secrets?: string[];
}

export interface FunctionStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  currentVersion?: number;
  /** Hash of the spec.source last built, so a source is built once per change. */
  builtSourceHash?: string;
}

export type FunctionObject = KubeObject & { spec: FunctionSpec; status?: FunctionStatus };

export interface BuildSpec {
  entrypoint: string;
  /** The manifest ConfigMap of the uploaded `archive.tar.gz` (`<build>-archive`). */
  archiveConfigMap: string;
  functionNames?: string[];
}

export interface BuiltFunction {
  id: string;
  name: string;
  createdVersion: string;
}

export interface BuildStatus {
  phase?: BuildPhase;
  observedGeneration?: number;
  conditions?: Condition[];
  startedAt?: string;
  endedAt?: string;
  builtFunctions?: BuiltFunction[];
  cause?: Cause;
}

export type BuildObject = KubeObject & { spec: BuildSpec; status?: BuildStatus };

export interface InvocationSpec {
  functionName: string;
  functionUid: string;
  versionId: string;
  /** The version's bundle ConfigMap. */
  bundleConfigMap: string;
  /** Serialized params live in a ConfigMap when large; inline here otherwise. */
  params: Record<string, unknown>;
  /** sessionConfig of the version deep-merged with the per-invocation sessionCreateParams. */
  sessionConfig: Record<string, unknown>;
  timeoutSeconds: number;
  sessionId: string;
}

export interface InvocationStatus {
  phase?: InvocationPhase;
  observedGeneration?: number;
  conditions?: Condition[];
  podName?: string;
  /** How many pods were started for it (a pod lost to a node restart is retried once). */
  attempts?: number;
  startedAt?: string;
  endedAt?: string;
  expiresAt?: string;
  results?: unknown;
  cause?: Cause;
}

export type InvocationObject = KubeObject & { spec: InvocationSpec; status?: InvocationStatus };

/** What changes how a browser is launched; an invocation runs on a pool member launched the same way. */
export interface LaunchShape {
  viewport?: { width: number; height: number };
  /** The session takes proxies: the browser goes through its pod's session proxy (session-proxies.ts). Pools never launch so. */
  proxied?: boolean;
}

export interface PodResources {
  requests?: { cpu?: string; memory?: string };
  limits?: { cpu?: string; memory?: string };
}

export interface BrowserPoolSpec {
  /** Idle members kept ready while the pool is in use. */
  minIdle: number;
  /** The most idle members demand may call for. */
  maxIdle: number;
  /** Without a matching invocation for this long the pool scales to zero (0: never). */
  idleSeconds?: number;
  /** An idle member older than this is replaced. */
  maxAgeSeconds?: number;
  launch?: LaunchShape;
  /** The runtime packages members load before they are claimed; absent: all of them. */
  preload?: RuntimePackage[];
  /**
   * The built artifact (manifest ConfigMap `artifact-<sha256>`, in the pool's namespace) whose code
   * members load before they are claimed; they then serve only invocations of that artifact.
   */
  preloadArtifact?: string;
  resources?: PodResources;
}

export interface BrowserPoolStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  /** Idle members whose browser is up and whose agent waits for an assignment. */
  ready?: number;
  /** Idle members still starting. */
  starting?: number;
  /** Members serving an invocation. */
  claimed?: number;
  /** Idle members the controller aims for now. */
  desired?: number;
  /** When an invocation that matches the pool last arrived. */
  lastActiveTime?: string;
  /** Members that ended before they were claimed, with no hour between one and the next. */
  memberFailures?: MemberFailures;
}

export interface MemberFailures {
  count: number;
  /** When the last was seen ended. */
  lastTime: string;
  /** Why the last ended. */
  lastReason: string;
}

export type BrowserPoolObject = KubeObject & { spec: BrowserPoolSpec; status?: BrowserPoolStatus };

/** Labels that tie children to their parents and make lookups by API ID possible. */
export const Labels = {
  functionUid: 'browserfn.dev/function-uid',
  functionName: 'browserfn.dev/function-name',
  versionId: 'browserfn.dev/version-id',
  buildName: 'browserfn.dev/build',
  invocationName: 'browserfn.dev/invocation',
  sessionId: 'browserfn.dev/session-id',
  role: 'browserfn.dev/role',
  secretId: 'browserfn.dev/secret-id',
  /** A warm pool member's pool (kept once claimed, so the pool sees its members leave). */
  pool: 'browserfn.dev/pool',
  /** Hash of the launch shape and resources a pool member was started with. */
  launchHash: 'browserfn.dev/launch-hash',
} as const;

/** Annotations the controllers and the façade put on pods and invocations. */
export const Annotations = {
  /** A browser pod's artifact manifest ConfigMap (in the pod's namespace): the node agent's cache serves it. */
  artifact: 'browserfn.dev/artifact',
  /** Set on a pool member when its agent first waits for an assignment: browser up, code loader started. */
  memberReady: 'browserfn.dev/ready-at',
  /** When a pool member was made, by its controller's clock. */
  memberCreatedAt: 'browserfn.dev/member-created-at',
  /** When a pool member was claimed for its invocation. */
  claimedAt: 'browserfn.dev/claimed-at',
  /** On an Invocation: when cancelling it was asked for; the invocation reconciler ends it. */
  cancelRequestedAt: 'browserfn.dev/cancel-requested-at',
  /** On a running Invocation: the base URL of the API replica its pod's live-view channel is connected to, and that replica's signature of it. */
  liveReplica: 'browserfn.dev/live-replica',
} as const;

/** Values of the role label on ConfigMaps, Pods and Secrets. */
export const Roles = {
  /** An artifact's manifest (uploaded archive or built bundle): see src/functions/stored/artifact-store.ts. */
  artifact: 'artifact',
  artifactChunk: 'artifact-chunk',
  version: 'function-version',
  buildOutput: 'build-output',
  invocationOutcome: 'invocation-outcome',
  sessionRecords: 'session-records',
  buildPod: 'build',
  browserPod: 'browser',
  projectSecret: 'project-secret',
  podToken: 'pod-token',
  /** A webhook (a ConfigMap), its signing secrets (a Secret) and one delivery of an event to it (a ConfigMap); src/webhooks. */
  webhook: 'webhook',
  webhookSigning: 'webhook-signing',
  webhookDelivery: 'webhook-delivery',
  /** A fixed-name ConfigMap a webhook holds so racing registrations keep the cap and unique endpoints; src/webhooks/claims.ts. */
  webhookClaim: 'webhook-claim',
} as const;
