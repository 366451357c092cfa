// The session recording of one invocation: its instruments attach to the browser's pages while
// the browser waits for its invocation (so setting them up does not compete with the handler's
// start), the invocation then keeps it (browserSettings.recordSession, on unless false) or has it
// withdrawn from every page before its handler gets the browser, and it is finished once the
// session ends. None of these steps can fail the invocation.
import { join } from 'node:path';
import type { Logger } from '../../config/logger.js';
import { DEFAULT_RECORDING_MAX_BYTES } from '../../config/settings.js';
import type { AgentSettings } from '../agent-common/agent-settings.js';
import type { SessionRecorder } from '../cdp-recorder/session-recorder.js';
import { SessionRecording, type RecordingFile } from '../cdp-recorder/session-recording.js';
import type { InvocationInput } from './invocation-input.js';

/** A recording attached to every page of the browser, before its invocation is known. */
export function prepareRecording(settings: AgentSettings, recorder: SessionRecorder, log: Logger): SessionRecording {
  const recording = new SessionRecording({
    ffmpegPath: settings.ffmpegPath,
    dir: join(settings.podDir, 'recording'),
    maxBytes: DEFAULT_RECORDING_MAX_BYTES,
    log: (message, fields) => log.warn(fields ?? {}, message),
  });
  for (const instrument of recording.instruments) recorder.addInstrument(instrument);
  return recording;
}

/** The recording with the invocation's size cap, or none: its instruments withdrawn from every page. */
export async function keepRecording(recording: SessionRecording, recorder: SessionRecorder, invocation: InvocationInput): Promise<SessionRecording | undefined> {
  const browserSettings = invocation.sessionConfig.browserSettings as { recordSession?: unknown } | undefined;
  if (browserSettings?.recordSession === false) {
    await Promise.all(recording.instruments.map((instrument) => recorder.removeInstrument(instrument)));
    return undefined;
  }
  recording.limitTo(invocation.recordingMaxBytes ?? DEFAULT_RECORDING_MAX_BYTES);
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
