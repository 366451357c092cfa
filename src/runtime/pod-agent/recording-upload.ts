// Hands the session recording to the control plane, one file at a time, the manifest last (a
// reader sees a recording only once it is whole). Bounded in time: the session's records wait for
// it, and a recording that cannot be stored leaves the session without one.
import { readFile } from 'node:fs/promises';
import type { Logger } from '../../config/logger.js';
import type { ControlPlaneClient } from '../agent-common/control-plane-client.js';
import type { RecordingFile } from '../cdp-recorder/session-recording.js';
import { RECORDING_UPLOAD_BUDGET_MS } from '../../schemas/deadlines.js';

export async function uploadRecording(control: ControlPlaneClient, files: RecordingFile[], log: Logger): Promise<void> {
  const started = Date.now();
  let bytes = 0;
  try {
    for (const file of files) {
      if (Date.now() - started > RECORDING_UPLOAD_BUDGET_MS) throw new Error(`not stored within ${RECORDING_UPLOAD_BUDGET_MS / 1000} s`);
      const body = file.bytes ?? (await readFile(file.path!));
      await control.putRecordingFile(file.name, body);
      bytes += body.length;
    }
    log.info({ files: files.length, bytes, ms: Date.now() - started }, 'session recording stored');
  } catch (error) {
    log.warn({ err: error as Error, stored: bytes }, 'session recording: could not be stored; the session has no recording');
  }
}
