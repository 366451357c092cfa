// The uploaded project of a Build: `<build>-archive`, owned by the Build, the tar.gz in one key.
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../../cluster/objects.js';
import { Labels, Roles, type BuildObject } from '../../schemas/resources.js';

const ARCHIVE_KEY = 'archive.tar.gz';

export const archiveName = (buildName: string): string => `${buildName}-archive`;

export function archiveConfigMap(build: BuildObject, archive: Buffer): KubeObject {
  return newObject<KubeObject>(
    Kinds.ConfigMap,
    {
      name: archiveName(build.metadata.name),
      namespace: build.metadata.namespace,
      labels: { [Labels.role]: Roles.archive, [Labels.buildName]: build.metadata.name },
      ownerReferences: [ownerReferenceTo(build)],
    },
    { immutable: true, binaryData: { [ARCHIVE_KEY]: archive.toString('base64') } },
  );
}

/** The archive, base64-encoded, or undefined when it is gone. */
export const readArchive = (configMap: KubeObject | undefined): string | undefined => configMap?.binaryData?.[ARCHIVE_KEY];
