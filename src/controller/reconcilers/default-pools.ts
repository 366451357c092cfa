// The default warm pool of a namespace: the operator keeps one BrowserPool named "default" (the
// default launch) in every namespace that has Functions, sized by BROWSERFN_WARM_POOL_*, and
// removes it when that size is 0. Its members load ahead the runtime packages the namespace's
// Functions import, and their code when they all run one artifact (unless code ahead is turned
// off). Pools people create themselves are left alone.
import { Kinds, newObject } from '../../cluster/objects.js';
import { isAlreadyExists, isNotFound, type ClusterPort } from '../../cluster/port.js';
import type { WarmPoolSettings } from '../../config/settings.js';
import type { BrowserPoolObject, BrowserPoolSpec, FunctionObject } from '../../schemas/resources.js';
import { RUNTIME_PACKAGES, type RuntimePackage } from '../../schemas/runtime-packages.js';
import { artifactSha256Of } from '../../functions/stored/artifact-store.js';
import type { Informer } from '../runtime/informer.js';
import type { Reconciler, Request } from '../runtime/controller.js';

export const DEFAULT_POOL_NAME = 'default';
/** Marks the pools this reconciler manages (and may resize or delete). */
export const DEFAULT_POOL_LABEL = 'browserfn.dev/default-pool';

export function defaultPoolSpec(settings: WarmPoolSettings, functions: FunctionObject[] = []): BrowserPoolSpec {
  const preload = preloadFor(functions);
  const preloadArtifact = settings.codeAhead ? sharedArtifactOf(functions) : undefined;
  return {
    minIdle: settings.size,
    maxIdle: settings.maxSize,
    idleSeconds: settings.idleSeconds,
    maxAgeSeconds: settings.maxAgeSeconds,
    ...(preload ? { preload } : {}),
    ...(preloadArtifact ? { preloadArtifact } : {}),
  };
}

/**
 * The artifact the current versions of `functions` all run (one project published together shares
 * one): members import its code ahead. Undefined when they run several, or one has no version yet.
 */
export function sharedArtifactOf(functions: FunctionObject[]): string | undefined {
  const artifacts = new Set(functions.map((fn) => fn.spec.version?.bundleConfigMap));
  const [only] = artifacts;
  return artifacts.size === 1 && only !== undefined && artifactSha256Of(only) !== undefined ? only : undefined;
}

/**
 * The runtime packages the current versions of `functions` import, together; undefined (all of
 * them) when there is no version yet or one does not record them.
 */
export function preloadFor(functions: FunctionObject[]): RuntimePackage[] | undefined {
  const versions = functions.map((fn) => fn.spec.version).filter((version) => version !== undefined);
  if (versions.length === 0 || versions.some((version) => !version.runtimePackages)) return undefined;
  const imported = new Set(versions.flatMap((version) => version.runtimePackages!));
  return RUNTIME_PACKAGES.filter((name) => imported.has(name));
}

export interface DefaultPoolReconcilerDeps {
  cluster: ClusterPort;
  functions: Informer<FunctionObject>;
  settings: WarmPoolSettings;
}

/** Requests are (namespace, "default"): one per namespace with Functions. */
export class DefaultPoolReconciler implements Reconciler {
  constructor(private readonly deps: DefaultPoolReconcilerDeps) {}

  async reconcile({ namespace }: Request): Promise<void> {
    const pools = this.deps.cluster.resource<BrowserPoolObject>(Kinds.BrowserPool);
    const existing = await pools.get(namespace, DEFAULT_POOL_NAME);
    if (existing && existing.metadata.labels?.[DEFAULT_POOL_LABEL] !== 'true') return;
    const functions = this.deps.functions.list((fn) => fn.metadata.namespace === namespace);
    const wanted = this.deps.settings.size > 0 && functions.length > 0;
    if (!wanted) {
      if (existing) await pools.delete(namespace, DEFAULT_POOL_NAME).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
      return;
    }
    const spec = defaultPoolSpec(this.deps.settings, functions);
    if (!existing) {
      const pool = newObject<BrowserPoolObject>(Kinds.BrowserPool, { name: DEFAULT_POOL_NAME, namespace, labels: { [DEFAULT_POOL_LABEL]: 'true' } }, { spec });
      await pools.create(pool).catch((err: unknown) => (isAlreadyExists(err) ? undefined : Promise.reject(err)));
    } else if (JSON.stringify(existing.spec) !== JSON.stringify(spec)) {
      await pools.update({ ...existing, spec });
    }
  }
}
