// Publishing use cases: accept an upload as a Build, read builds back.
import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { Kinds, ownerReferenceTo, type KubeObject } from '../cluster/objects.js';
import type { ClusterPort } from '../cluster/port.js';
import { invalid, notFound } from '../domain/errors.js';
import { ArchiveProblem, checkProjectArchive } from '../domain/project-archive/archive-check.js';
import type { BuildObject } from '../schemas/resources.js';
import type { LogEntry } from '../schemas/reports.js';
import { writeArtifact } from './stored/artifact-store.js';
import { buildOutputName, readBuildLogs } from './stored/build-output.js';
import { CREATED_AT_ANNOTATION } from './invocations.js';
import { assertUuid } from './lookup.js';
import type { Archive } from './archived/archive.js';
import { readArchivedBuild, type ArchivedBuild } from './archived/build-record.js';

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
export async function createBuild(cluster: ClusterPort, project: string, request: BuildRequest, archive: Buffer | ArchiveReader, origin: BuildOrigin = {}): Promise<BuildObject> {
  const read = () => (typeof archive === 'function' ? archive() : archive);
  await assertProjectArchive(read());
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
    await writeArtifact(cluster, project, read(), { owner: build, name: archiveName(name), maxBytes: Number.MAX_SAFE_INTEGER });
  } catch (err) {
    await builds.delete(project, name).catch(() => undefined);
    throw err;
  }
  return build;
}

/** Opens the uploaded archive afresh: it is read twice, to check it and to store it. */
export type ArchiveReader = () => Readable;

/** A bad archive is refused before anything is stored; the build agent checks it again before extracting. */
async function assertProjectArchive(archive: Buffer | Readable): Promise<void> {
  try {
    await checkProjectArchive(archive);
  } catch (err) {
    if (err instanceof ArchiveProblem) throw invalid(`Invalid project archive: ${err.message}`);
    throw err;
  }
}

/** A build found in the cluster store, or in the archive once it left the store. */
export interface FoundBuild {
  build: BuildObject;
  archived?: ArchivedBuild;
}

export async function getBuild(cluster: ClusterPort, archive: Archive, project: string, id: string): Promise<FoundBuild> {
  assertUuid(id, 'build ID');
  const name = id.toLowerCase();
  const build = await cluster.resource<BuildObject>(Kinds.Build).get(project, name);
  if (build) return { build };
  const archived = await readArchivedBuild(archive, project, name);
  if (!archived) throw notFound(`Build ${id} does not exist in this project`);
  return { build: archived.build, archived };
}

/** The build's log. With an archive, an ended build whose output is gone may have been archived (and deleted) meanwhile. */
export async function buildLogs(cluster: ClusterPort, archive: Archive | undefined, { build, archived }: FoundBuild): Promise<LogEntry[]> {
  if (archived) return archived.logs;
  const output: KubeObject | undefined = await cluster.resource(Kinds.ConfigMap).get(build.metadata.namespace, buildOutputName(build.metadata.name));
  const ended = build.status?.phase === 'COMPLETED' || build.status?.phase === 'FAILED';
  const archivedMeanwhile = !output && archive && ended ? await readArchivedBuild(archive, build.metadata.namespace!, build.metadata.name) : undefined;
  if (archivedMeanwhile) return archivedMeanwhile.logs;
  const logs = readBuildLogs(output);
  const cause = build.status?.cause;
  if (cause && !output) logs.push({ level: 'error', message: `${cause.code}: ${cause.message ?? ''}`, timestamp: build.status?.endedAt ?? '' });
  return logs;
}
