// The cluster port: the one interface the controllers and the façade use to reach the store.
// Two backends implement it with the same semantics: `embedded` (SQLite) and `kube` (a real API server).
import type { KubeObject, ResourceType } from './objects.js';

export interface ListOptions {
  /** Kubernetes label selector syntax: `a=b,c!=d,e,!f,g in (x,y),h notin (z)`. */
  labelSelector?: string;
  /** Only objects whose `metadata.name` matches. Used rarely; most lookups go by label. */
  fieldSelector?: string;
}

export interface ObjectList<T extends KubeObject> {
  items: T[];
  /** The store's resourceVersion at the time of the list; a watch from it misses nothing. */
  resourceVersion: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent<T extends KubeObject> {
  type: WatchEventType;
  object: T;
}

export interface WatchOptions extends ListOptions {
  /** Deliver every event after this version, in order. Omitted: only events from now on. */
  resourceVersion?: string;
}

export interface Watch {
  /** Stops delivery; no event is delivered after it resolves. */
  stop(): Promise<void>;
  /** Resolves when the watch ends, by stop() or by error (the error is passed to onError first). */
  readonly done: Promise<void>;
}

export interface DeleteOptions {
  /** Only delete when the stored object still has this uid (guards against deleting a re-created object). */
  uid?: string;
  resourceVersion?: string;
  /**
   * Pods: 0 removes the object at once, as a kubelet does once the pod's processes are gone; by
   * default a pod bound to a node only gets its deletionTimestamp until its node confirms.
   */
  gracePeriodSeconds?: number;
}

/** Typed access to one kind. Namespaced kinds take a namespace; cluster-scoped kinds pass undefined. */
export interface ResourceClient<T extends KubeObject = KubeObject> {
  readonly type: ResourceType;
  get(namespace: string | undefined, name: string): Promise<T | undefined>;
  list(namespace: string | undefined, options?: ListOptions): Promise<ObjectList<T>>;
  /** Fails with AlreadyExistsError when the name is taken. Fills uid, resourceVersion, generation, creationTimestamp. */
  create(obj: T): Promise<T>;
  /** Replaces metadata and spec/data (not status for kinds with a status subresource). Stale resourceVersion: ConflictError. */
  update(obj: T): Promise<T>;
  /** Replaces only status. Stale resourceVersion: ConflictError. */
  updateStatus(obj: T): Promise<T>;
  /** Deletes, then garbage-collects dependents (ownerReferences). With finalizers: marks deletionTimestamp only. */
  delete(namespace: string | undefined, name: string, options?: DeleteOptions): Promise<void>;
  watch(
    namespace: string | undefined,
    options: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
    onError?: (err: Error) => void,
  ): Promise<Watch>;
}

export interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  /** The pod the token is bound to: it stops working when that pod is gone. */
  boundPod: { name: string; uid: string };
}

/** What a node agent asks of the API server beyond objects, as a kubelet does (the kube backend only). */
export interface PodCredentials {
  /** The API server as pods reach it (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT). */
  readonly apiServer: URL;
  /** TokenRequest (serviceaccounts/<name>/token): a token of the ServiceAccount bound to a pod. */
  requestToken(namespace: string, serviceAccount: string, spec: TokenRequestSpec): Promise<{ token: string; expirationTimestamp: string }>;
}

export interface ClusterPort {
  /** A short name for logs and metrics: 'embedded' or 'kube'. */
  readonly backend: string;
  /** Pods' ServiceAccount tokens: only a real API server issues them. */
  readonly podCredentials?: PodCredentials;
  resource<T extends KubeObject = KubeObject>(type: ResourceType): ResourceClient<T>;
  close(): Promise<void>;
}

/** Errors carry the HTTP status the Kubernetes API would answer with. */
export class ClusterError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
export class NotFoundError extends ClusterError {
  constructor(message: string) {
    super(404, 'NotFound', message);
  }
}
/** The store's disk is full: the write was rolled back whole. */
export class StorageFullError extends ClusterError {
  constructor(message: string) {
    super(507, 'InsufficientStorage', message);
  }
}
export class AlreadyExistsError extends ClusterError {
  constructor(message: string) {
    super(409, 'AlreadyExists', message);
  }
}
export class ConflictError extends ClusterError {
  constructor(message: string) {
    super(409, 'Conflict', message);
  }
}
export class InvalidError extends ClusterError {
  constructor(message: string) {
    super(422, 'Invalid', message);
  }
}
/** The requested resourceVersion is older than the store keeps: relist and watch again. */
export class GoneError extends ClusterError {
  constructor(message: string) {
    super(410, 'Gone', message);
  }
}

export const isNotFound = (err: unknown): boolean => err instanceof ClusterError && err.code === 404;
export const isConflict = (err: unknown): boolean => err instanceof ClusterError && err.reason === 'Conflict';
export const isAlreadyExists = (err: unknown): boolean => err instanceof ClusterError && err.reason === 'AlreadyExists';
