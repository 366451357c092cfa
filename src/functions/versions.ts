// Publishing one Function version from a finished Build: create the Function on first publish
// (its uid becomes the Function ID), record an immutable version, point the Function at it.
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../cluster/objects.js';
import { isAlreadyExists, isConflict, type ClusterPort } from '../cluster/port.js';
import { retryOnConflict } from '../cluster/retry.js';
import { Labels, Roles, type BuildObject, type BuiltFunction, type FunctionObject, type FunctionVersionSpec } from '../schemas/resources.js';
import type { BuiltFunctionReport } from '../schemas/reports.js';
import type { RuntimePackage } from '../schemas/runtime-packages.js';
import { deterministicUuid, functionObjectName, nowIso } from './naming.js';

const VERSION_KEY = 'version.json';

export const versionConfigMapName = (fn: FunctionObject, number: number): string => `${fn.metadata.name}-v${number}`;

export async function publishVersion(
  cluster: ClusterPort,
  build: BuildObject,
  report: BuiltFunctionReport,
  bundleConfigMap: string,
  runtimePackages?: RuntimePackage[],
): Promise<BuiltFunction> {
  const namespace = build.metadata.namespace!;
  const functions = cluster.resource<FunctionObject>(Kinds.Function);
  const configMaps = cluster.resource(Kinds.ConfigMap);
  const versionId = deterministicUuid(build.metadata.uid!, report.name);

  // Another publish may create the Function, take the next version number or update the Function
  // first: each of those is a conflict, and the step runs again on what is stored then.
  return retryOnConflict(
    async () => {
      // By logical name: a hand-written manifest may have any object name.
      const fn =
        (await functions.list(namespace)).items.find((f) => f.spec.name === report.name && !f.metadata.deletionTimestamp) ??
        (await functions.create({
          apiVersion: build.apiVersion,
          kind: 'Function',
          metadata: { name: functionObjectName(report.name), namespace, labels: { [Labels.functionName]: labelSafe(report.name) } },
          spec: { name: report.name },
        }));
      if (fn.spec.version?.id === versionId) return { id: fn.metadata.uid!, name: report.name, createdVersion: versionId };

      const version: FunctionVersionSpec = {
        id: versionId,
        number: (fn.spec.version?.number ?? 0) + 1,
        buildName: build.metadata.name,
        bundleConfigMap,
        sessionConfig: report.sessionConfig,
        parametersSchema: report.parametersSchema,
        runtimePackages,
        createdAt: nowIso(),
      };
      const record = versionConfigMap(fn, version);
      try {
        await configMaps.create(record);
      } catch (err) {
        // This version number is taken: by this very version (a retry), or by another one.
        if (!isAlreadyExists(err)) throw err;
        const existing = await configMaps.get(namespace, record.metadata.name);
        if (existing?.metadata.labels?.[Labels.versionId] !== versionId) throw err;
      }
      const updated = await functions.update({ ...fn, spec: { ...fn.spec, version } });
      return { id: updated.metadata.uid!, name: report.name, createdVersion: versionId };
    },
    { retries: 7, retriable: (err) => isConflict(err) || isAlreadyExists(err) },
  );
}

/** The immutable record of one version, owned by its Function (the versions endpoints list these). */
function versionConfigMap(fn: FunctionObject, version: FunctionVersionSpec): KubeObject {
  return newObject<KubeObject>(
    Kinds.ConfigMap,
    {
      name: versionConfigMapName(fn, version.number),
      namespace: fn.metadata.namespace,
      labels: { [Labels.role]: Roles.version, [Labels.functionUid]: fn.metadata.uid!, [Labels.versionId]: version.id, [Labels.buildName]: version.buildName ?? '' },
      ownerReferences: [ownerReferenceTo(fn)],
    },
    { immutable: true, data: { [VERSION_KEY]: JSON.stringify(version) } },
  );
}

export function readVersion(configMap: KubeObject): FunctionVersionSpec {
  return JSON.parse(configMap.data?.[VERSION_KEY] ?? '{}') as FunctionVersionSpec;
}

/** Label values are limited to 63 characters of [A-Za-z0-9_.-]. */
export function labelSafe(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return cleaned || 'x';
}
