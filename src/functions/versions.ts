// Publishing one Function version from a finished Build: create the Function on first publish
// (its uid becomes the Function ID), record an immutable version, point the Function at it.
import { Kinds, ownerReferenceTo, type KubeObject } from '../cluster/objects.js';
import { isAlreadyExists, isConflict, type ClusterPort } from '../cluster/port.js';
import { Labels, Roles, type BuildObject, type BuiltFunction, type FunctionObject, type FunctionVersionSpec } from '../schemas/resources.js';
import type { BuiltFunctionReport } from '../schemas/reports.js';
import { deterministicUuid, functionObjectName, nowIso } from './naming.js';

export const versionConfigMapName = (fn: FunctionObject, number: number): string => `${fn.metadata.name}-v${number}`;

export async function publishVersion(
  cluster: ClusterPort,
  build: BuildObject,
  report: BuiltFunctionReport,
  bundleConfigMap: string,
): Promise<BuiltFunction> {
  const namespace = build.metadata.namespace!;
  const functions = cluster.resource<FunctionObject>(Kinds.Function);
  const configMaps = cluster.resource(Kinds.ConfigMap);
  const versionId = deterministicUuid(build.metadata.uid!, report.name);

  for (let attempt = 0; attempt < 8; attempt++) {
    // By logical name: a hand-written manifest may have any object name.
    let fn = (await functions.list(namespace)).items.find((f) => f.spec.name === report.name && !f.metadata.deletionTimestamp);
    if (!fn) {
      try {
        fn = await functions.create({
          apiVersion: build.apiVersion,
          kind: 'Function',
          metadata: { name: functionObjectName(report.name), namespace, labels: { [Labels.functionName]: labelSafe(report.name) } },
          spec: { name: report.name },
        });
      } catch (err) {
        if (isAlreadyExists(err)) continue;
        throw err;
      }
    }
    if (fn.spec.version?.id === versionId) return { id: fn.metadata.uid!, name: report.name, createdVersion: versionId };

    const version: FunctionVersionSpec = {
      id: versionId,
      number: (fn.spec.version?.number ?? 0) + 1,
      buildName: build.metadata.name,
      bundleConfigMap,
      sessionConfig: report.sessionConfig,
      parametersSchema: report.parametersSchema,
      createdAt: nowIso(),
    };
    const record: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      immutable: true,
      metadata: {
        name: versionConfigMapName(fn, version.number),
        namespace,
        labels: { [Labels.role]: Roles.version, [Labels.functionUid]: fn.metadata.uid!, [Labels.versionId]: versionId, [Labels.buildName]: build.metadata.name },
        ownerReferences: [ownerReferenceTo(fn)],
      },
      data: { 'version.json': JSON.stringify(version) },
    };
    try {
      await configMaps.create(record);
    } catch (err) {
      // Someone else took this version number; re-read and try the next one.
      if (!isAlreadyExists(err)) throw err;
      const existing = await configMaps.get(namespace, record.metadata.name);
      if (existing?.metadata.labels?.[Labels.versionId] !== versionId) continue;
    }
    try {
      const updated = await functions.update({ ...fn, spec: { ...fn.spec, version } });
      return { id: updated.metadata.uid!, name: report.name, createdVersion: versionId };
    } catch (err) {
      if (isConflict(err)) continue;
      throw err;
    }
  }
  throw new Error(`could not publish a version of "${report.name}": too many concurrent updates`);
}

export function readVersion(configMap: KubeObject): FunctionVersionSpec {
  return JSON.parse(configMap.data?.['version.json'] ?? '{}') as FunctionVersionSpec;
}

/** Label values are limited to 63 characters of [A-Za-z0-9_.-]. */
export function labelSafe(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return cleaned || 'x';
}
