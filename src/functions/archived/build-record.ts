// An archived build: `builds/<project>/<id>.json` holds the Build as it ended and its log.
import type { BuildObject } from '../../schemas/resources.js';
import type { LogEntry } from '../../schemas/reports.js';
import { parseRecord, putVerified, withinRetention, type Archive } from './archive.js';

const FORMAT = 'browserfn.dev/archived-build/v1';

export interface ArchivedBuild {
  format: typeof FORMAT;
  build: BuildObject;
  logs: LogEntry[];
}

export const BUILDS_PREFIX = 'builds/';
export const buildRecordKey = (project: string, id: string): string => `${BUILDS_PREFIX}${project}/${id}.json`;

/** Idempotent: a retry after a crash writes the same bytes under the same key. */
export async function archiveBuild(archive: Archive, build: BuildObject, logs: LogEntry[]): Promise<void> {
  const record: ArchivedBuild = { format: FORMAT, build: build, logs };
  await putVerified(archive.store, [{ key: buildRecordKey(build.metadata.namespace!, build.metadata.name), body: Buffer.from(JSON.stringify(record)) }]);
}

/** The archived build of this project, or undefined when there is none or its retention ended. */
export async function readArchivedBuild(archive: Archive, project: string, id: string): Promise<ArchivedBuild | undefined> {
  const key = buildRecordKey(project, id);
  const record = parseRecord<ArchivedBuild>(await archive.store.get(key), FORMAT, key);
  if (!record || record.build.metadata.namespace !== project) return undefined;
  return withinRetention(archive, record.build.status?.endedAt ?? record.build.metadata.creationTimestamp) ? record : undefined;
}
