// Reading a session's recording: the session must be one of the project's and within retention
// (the same lookup as GET /v1/sessions/{id}), then its files come from the artifact store. Until
// its manifest is stored (the session runs, or was not recorded) it has no pages and no events; a
// read just after its invocation ended waits for its pod to close the session and store them.
import type { ClusterPort } from '../../cluster/port.js';
import type { Archive } from '../archived/archive.js';
import { notFound } from '../../domain/errors.js';
import { awaitSessionClosed, getInvocationBySession } from '../invocations.js';
import {
  EVENTS_FILE,
  MANIFEST_FILE,
  RECORDING_FORMAT,
  isPageId,
  isSegmentName,
  mp4File,
  playlistFile,
  segmentFile,
  type RecordedPage,
  type RecordingManifest,
  type StoredRrwebEvent,
} from '../../schemas/recording.js';
import { recordingKey } from './keys.js';

export interface SessionRecordingFiles {
  sessionId: string;
  manifest: RecordingManifest | undefined;
  events(): Promise<StoredRrwebEvent[]>;
  playlist(pageId: string): Promise<Buffer>;
  segment(pageId: string, segment: string): Promise<Buffer>;
  mp4(pageId: string): Promise<Buffer>;
}

export async function sessionRecording(cluster: ClusterPort, archive: Archive, project: string, sessionId: string): Promise<SessionRecordingFiles> {
  const found = await getInvocationBySession(cluster, archive, project, sessionId);
  await awaitSessionClosed(cluster, found);
  const { invocation } = found;
  const id = invocation.spec.sessionId;
  const read = (file: string) => archive.store.get(recordingKey(project, id, file));
  const manifestBytes = await read(MANIFEST_FILE);
  const manifest = manifestBytes ? (JSON.parse(manifestBytes.toString('utf8')) as RecordingManifest) : undefined;
  if (manifest && manifest.format !== RECORDING_FORMAT) throw new Error(`the recording of session ${id} is not a ${RECORDING_FORMAT} manifest`);
  const page = (pageId: string): RecordedPage => {
    const found = isPageId(pageId) ? manifest?.pages.find((p) => p.pageId.toLowerCase() === pageId.toLowerCase()) : undefined;
    if (!found) throw notFound(`Session ${id} has no recorded page ${pageId}`);
    return found;
  };
  const file = async (name: string, what: string): Promise<Buffer> => {
    const bytes = await read(name);
    if (!bytes) throw notFound(`The ${what} of session ${id} is not stored`);
    return bytes;
  };
  return {
    sessionId: id,
    manifest,
    async events() {
      const bytes = manifest ? await read(EVENTS_FILE) : undefined;
      return bytes ? (JSON.parse(bytes.toString('utf8')) as StoredRrwebEvent[]) : [];
    },
    playlist: (pageId) => file(playlistFile(page(pageId).pageId), `replay of page ${pageId}`),
    segment(pageId, segment) {
      if (!isSegmentName(segment) || !page(pageId).segments.includes(segment)) throw notFound(`Page ${pageId} of session ${id} has no segment ${segment}`);
      return file(segmentFile(pageId, segment), `segment ${segment} of page ${pageId}`);
    },
    mp4(pageId) {
      if (!page(pageId).mp4) throw notFound(`Page ${pageId} of session ${id} has no MP4`);
      return file(mp4File(pageId), `MP4 of page ${pageId}`);
    },
  };
}
