// Publishing use cases: accept an upload as a Build, read builds back.
import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import { Kinds, ownerReferenceTo, type KubeObject } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import { invalid, notFound } from '../domain/errors.js';
import type { BuildObject } from '../schemas/resources.js';
import type { LogEntry } from '../schemas/reports.js';
import { writeArtifact } from './stored/artifact-store.js';
import { buildOutputName, readBuildLogs } from './stored/build-output.js';
import { CREATED_AT_ANNOTATION } from './invocations.js';
import { assertUuid } from './lookup.js';

export interface BuildRequest {
  entrypoint: string;
  functionNames?: string[];
}

/** Checks the upload's metadata part: a relative path inside the project, nothing else. */
export function parseBuildMetadata(raw: string | undefined): BuildRequest {
  if (raw === undefined) throw invalid('Missing the "metadata" form field: send {"entrypoint": "path/to/index.ts"}');
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalid('The "metadata" form field is not valid JSON');
  }
  const meta = value as { entrypoint?: unknown; functionNames?: unknown };
  if (typeof meta !== 'object' || meta === null || typeof meta.entrypoint !== 'string' || meta.entrypoint.trim() === '') {
    throw invalid('metadata.entrypoint is required: the path of the entry file relative to the project root');
  }
  const entrypoint = posix.normalize(meta.entrypoint.replace(/\\/g, '/'));
  if (entrypoint.startsWith('/') || entrypoint.startsWith('..') || entrypoint.length > 512) {
    throw invalid(`metadata.entrypoint "${meta.entrypoint}" must be a relative path inside the project`);
  }
  if (meta.functionNames !== undefined && (!Array.isArray(meta.functionNames) || !meta.functionNames.every((n) => typeof n === 'string'))) {
    throw invalid('metadata.functionNames must be an array of strings');
  }
  return { entrypoint, functionNames: meta.functionNames as string[] | undefined };
}

export interface BuildOrigin {
  labels?: Record<string, string>;
  /** The Function a hand-written manifest's source build belongs to. */
  owner?: KubeObject;
}

/** The manifest of a Build's uploaded archive, owned by the Build. */
export const archiveName = (buildName: string): string => `${buildName}-archive`;

/**
 * Creates the Build, then stores its archive (streamed into chunks owned by the Build, whose size
 * the caller has bounded); if the archive cannot be stored, the Build goes too, and its chunks with it.
 */
export async function createBuild(cluster: ClusterPort, project: string, request: BuildRequest, archive: Buffer | AsyncIterable<Buffer>, origin: BuildOrigin = {}): Promise<BuildObject> {
  const builds = cluster.resource<BuildObject>(Kinds.Build);
  const name = randomUUID();
  const build = await builds.create({
    apiVersion: 'browserfn.dev/v1alpha1',
    kind: 'Build',
    metadata: {
      name,
      namespace: project,
      labels: origin.labels,
      annotations: { [CREATED_AT_ANNOTATION]: new Date().toISOString() },
      ...(origin.owner ? { ownerReferences: [ownerReferenceTo(origin.owner, false)] } : {}),
    },
    spec: { entrypoint: request.entrypoint, archiveConfigMap: archiveName(name), ...(request.functionNames ? { functionNames: request.functionNames } : {}) },
  });
  try {
    await writeArtifact(cluster, project, archive, { owner: build, name: archiveName(name), maxBytes: Number.MAX_SAFE_INTEGER });
  } catch (err) {
    await builds.delete(project, name).catch(() => undefined);
    throw err;
  }
  return build;
}

export async function getBuild(cluster: ClusterPort, project: string, id: string): Promise<BuildObject> {
  assertUuid(id, 'build ID');
  const build = await cluster.resource<BuildObject>(Kinds.Build).get(project, id.toLowerCase());
  if (!build) throw notFound(`Build ${id} does not exist in this project`);
  return build;
}

export async function buildLogs(cluster: ClusterPort, build: BuildObject): Promise<LogEntry[]> {
  const output: KubeObject | undefined = await cluster.resource(Kinds.ConfigMap).get(build.metadata.namespace, buildOutputName(build.metadata.name));
  const logs = readBuildLogs(output);
  const cause = build.status?.cause;
  if (cause && !output) logs.push({ level: 'error', message: `${cause.code}: ${cause.message ?? ''}`, timestamp: build.status?.endedAt ?? '' });
  return logs;
}
