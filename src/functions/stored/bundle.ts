// A built bundle: `<build>-bundle`, the gzip-compressed ESM bundle in one key. It outlives its Build:
// the Functions whose versions run it own it.
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../../cluster/objects.js';
import { Labels, Roles, type BuildObject } from '../../schemas/resources.js';

export const BUNDLE_KEY = 'bundle.mjs.gz';

export const bundleName = (buildName: string): string => `${buildName}-bundle`;

/** Owned by the Build until the Functions take it over, so a failure in between leaves no orphan. */
export function bundleConfigMap(build: BuildObject, bundleGzipBase64: string): KubeObject {
  return newObject<KubeObject>(
    Kinds.ConfigMap,
    {
      name: bundleName(build.metadata.name),
      namespace: build.metadata.namespace,
      labels: { [Labels.role]: Roles.bundle, [Labels.buildName]: build.metadata.name },
      ownerReferences: [ownerReferenceTo(build, false)],
    },
    { immutable: true, binaryData: { [BUNDLE_KEY]: bundleGzipBase64 } },
  );
}

/** The bundle, gzip-compressed and base64-encoded, or undefined when it is gone. */
export const readBundle = (configMap: KubeObject | undefined): string | undefined => configMap?.binaryData?.[BUNDLE_KEY];
