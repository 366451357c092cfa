// A browser pod storing its session's recording, file by file, within the session's size cap:
// the files already stored count, so no sequence of uploads gets past it.
import type { ArtifactStore } from '../../artifacts/port.js';
import { invalid } from '../../domain/errors.js';
import { isRecordingFile } from '../../schemas/recording.js';
import { recordingKey, recordingPrefix } from './keys.js';

/** Bytes the session may still store, replacing `file` if it is there. */
export async function recordingRoom(store: ArtifactStore, project: string, sessionId: string, file: string, maxBytes: number): Promise<{ room: number; stored: number }> {
  if (!isRecordingFile(file)) throw invalid(`"${file}" is not a recording file name`);
  const replaced = recordingKey(project, sessionId, file);
  const stored = (await store.list(recordingPrefix(project, sessionId))).filter((entry) => entry.key !== replaced).reduce((sum, entry) => sum + entry.size, 0);
  return { room: Math.max(0, maxBytes - stored), stored };
}

export async function putRecordingFile(store: ArtifactStore, project: string, sessionId: string, file: string, body: Buffer): Promise<void> {
  if (!isRecordingFile(file)) throw invalid(`"${file}" is not a recording file name`);
  await store.put(recordingKey(project, sessionId, file), body);
}
