// Which artifact each stored version of a project runs, which artifacts something still needs, and
// removing one: the seam between version pruning (src/controller) and how artifacts are stored
// (stored/artifact-store.ts: a content-addressed manifest `artifact-<sha256>` whose chunks it owns,
// so deleting the manifest lets garbage collection take the chunks). Version metadata (the
// `<function>-v<N>` ConfigMaps) is never touched here, so every version stays listable.
import { Kinds } from '../cluster/objects.js';
import { isNotFound, type ClusterPort } from '../cluster/port.js';
import { Labels, Roles, type FunctionObject, type InvocationObject } from '../schemas/resources.js';
import { isTerminal } from './invocations.js';
import { artifactSha256Of } from './stored/artifact-store.js';
import { readVersion } from './versions.js';

export interface ProjectVersionBundles {
  versions: { functionUid: string; number: number; bundle: string }[];
  /** Run by a Function's current version or by an invocation that has not ended. */
  inUse: Set<string>;
  /** Bundles stored now (pruned ones are not). */
  existing: Set<string>;
}

export async function projectVersionBundles(cluster: ClusterPort, namespace: string): Promise<ProjectVersionBundles> {
  const [records, bundles, functions, invocations] = await Promise.all([
    cluster.resource(Kinds.ConfigMap).list(namespace, { labelSelector: `${Labels.role}=${Roles.version}` }),
    cluster.resource(Kinds.ConfigMap).list(namespace, { labelSelector: `${Labels.role}=${Roles.artifact}` }),
    cluster.resource<FunctionObject>(Kinds.Function).list(namespace),
    cluster.resource<InvocationObject>(Kinds.Invocation).list(namespace),
  ]);
  const versions = records.items.map((record) => {
    const version = readVersion(record);
    return { functionUid: record.metadata.labels?.[Labels.functionUid] ?? '', number: version.number, bundle: version.bundleConfigMap };
  });
  const inUse = new Set<string>();
  for (const fn of functions.items) if (fn.spec.version) inUse.add(fn.spec.version.bundleConfigMap);
  for (const inv of invocations.items) if (!isTerminal(inv)) inUse.add(inv.spec.bundleConfigMap);
  // Uploaded archives are artifacts too (`<build>-archive`), owned by their Build: not version bundles.
  const built = bundles.items.map((cm) => cm.metadata.name).filter((name) => artifactSha256Of(name) !== undefined);
  return { versions, inUse, existing: new Set(built) };
}

/** Removes one bundle; one already gone is no error. */
export async function deleteVersionBundle(cluster: ClusterPort, namespace: string, bundle: string): Promise<void> {
  try {
    await cluster.resource(Kinds.ConfigMap).delete(namespace, bundle);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
