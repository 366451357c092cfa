// Reading Functions and their versions.
import { Kinds } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import { notFound } from '../domain/errors.js';
import { Labels, Roles, type FunctionObject, type FunctionVersionSpec } from '../schemas/resources.js';
import { assertUuid } from './lookup.js';
import { readVersion } from './versions.js';

export async function listVersions(cluster: ClusterPort, fn: FunctionObject): Promise<FunctionVersionSpec[]> {
  const { items } = await cluster
    .resource(Kinds.ConfigMap)
    .list(fn.metadata.namespace, { labelSelector: `${Labels.role}=${Roles.version},${Labels.functionUid}=${fn.metadata.uid}` });
  return items.map(readVersion).sort((a, b) => b.number - a.number);
}

export async function getVersion(cluster: ClusterPort, project: string, id: string): Promise<{ version: FunctionVersionSpec; functionUid: string }> {
  assertUuid(id, 'version ID');
  const { items } = await cluster
    .resource(Kinds.ConfigMap)
    .list(project, { labelSelector: `${Labels.role}=${Roles.version},${Labels.versionId}=${id.toLowerCase()}` });
  if (!items[0]) throw notFound(`Function version ${id} does not exist in this project`);
  return { version: readVersion(items[0]), functionUid: items[0].metadata.labels![Labels.functionUid] };
}
