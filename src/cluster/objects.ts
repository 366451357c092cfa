// Kubernetes-shaped object model shared by both backends of the cluster port.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/** Any object the cluster stores. Kinds with spec/status use those; ConfigMaps and Secrets use data. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: unknown;
  status?: unknown;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  stringData?: Record<string, string>;
  type?: string;
  immutable?: boolean;
}

/** Describes where a kind lives in the API, the way a REST mapper would. */
export interface ResourceType {
  group: string; // '' for the core group
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** Whether writes to `status` go through the status subresource only. */
  hasStatusSubresource: boolean;
}

export const apiVersionOf = (type: ResourceType): string =>
  type.group ? `${type.group}/${type.version}` : type.version;

export const API_GROUP = 'browserfn.dev';
export const API_VERSION = 'v1alpha1';

export const Kinds = {
  Function: { group: API_GROUP, version: API_VERSION, kind: 'Function', plural: 'functions', namespaced: true, hasStatusSubresource: true },
  Build: { group: API_GROUP, version: API_VERSION, kind: 'Build', plural: 'builds', namespaced: true, hasStatusSubresource: true },
  Invocation: { group: API_GROUP, version: API_VERSION, kind: 'Invocation', plural: 'invocations', namespaced: true, hasStatusSubresource: true },
  BrowserPool: { group: API_GROUP, version: API_VERSION, kind: 'BrowserPool', plural: 'browserpools', namespaced: true, hasStatusSubresource: true },
  ConfigMap: { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, hasStatusSubresource: false },
  Secret: { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true, hasStatusSubresource: false },
  Pod: { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true, hasStatusSubresource: true },
  Namespace: { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false, hasStatusSubresource: true },
  Node: { group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false, hasStatusSubresource: true },
  Service: { group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true, hasStatusSubresource: true },
  Lease: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true, hasStatusSubresource: false },
} as const satisfies Record<string, ResourceType>;

export type KindName = keyof typeof Kinds;

/** Builds a fresh object of a kind with the given metadata; spec/data are filled by the caller. */
export function newObject<T extends KubeObject>(type: ResourceType, metadata: ObjectMeta, body: Omit<T, 'apiVersion' | 'kind' | 'metadata'>): T {
  return { apiVersion: apiVersionOf(type), kind: type.kind, metadata, ...body } as T;
}

export function ownerReferenceTo(owner: KubeObject, controller = true): OwnerReference {
  if (!owner.metadata.uid) throw new Error(`owner ${owner.kind}/${owner.metadata.name} has no uid yet`);
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller,
    blockOwnerDeletion: true,
  };
}

export function isControlledBy(obj: KubeObject, ownerUid: string): boolean {
  return (obj.metadata.ownerReferences ?? []).some((ref) => ref.uid === ownerUid && ref.controller);
}
