// The session recording of one invocation: started (browserSettings.recordSession, on unless
// false) once the invocation is known and before its handler has the browser, finished once the
// session ends. Neither step can fail the invocation.
import { join } from 'node:path';
import type { Logger } from '../../config/logger.js';
import { DEFAULT_RECORDING_MAX_BYTES } from '../../config/settings.js';
import type { AgentSettings } from '../agent-common/agent-settings.js';
import type { SessionRecorder } from '../cdp-recorder/session-recorder.js';
import { SessionRecording, type RecordingFile } from '../cdp-recorder/session-recording.js';
import type { InvocationInput } from './invocation-input.js';

export function startRecording(settings: AgentSettings, invocation: InvocationInput, recorder: SessionRecorder, log: Logger): SessionRecording | undefined {
  const browserSettings = invocation.sessionConfig.browserSettings as { recordSession?: unknown } | undefined;
  if (browserSettings?.recordSession === false) return undefined;
  const recording = new SessionRecording({
    ffmpegPath: settings.ffmpegPath,
    dir: join(settings.podDir, 'recording'),
    maxBytes: invocation.recordingMaxBytes ?? DEFAULT_RECORDING_MAX_BYTES,
    viewport: settings.viewport,
    log: (message, fields) => log.warn(fields ?? {}, message),
  });
  for (const instrument of recording.instruments) recorder.addInstrument(instrument);
  return recording;
}

/** The recording's files, its videos finished; none when the session was not recorded or it failed. */
export async function finishRecording(recording: SessionRecording | undefined, endedAt: Date, log: Logger): Promise<RecordingFile[]> {
  if (!recording) return [];
  try {
    return await recording.finish(endedAt.getTime());
  } catch (error) {
    log.warn({ err: error as Error }, 'session recording: could not be finished; the session has no recording');
    return [];
  }
}
