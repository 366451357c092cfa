// A session recording as the pod agent produces it and the façade stores and serves it: per page an
// HLS playlist with its segments and an MP4, the session's rrweb events, and a manifest written
// last (docs/recording.md). Both sides name files with these functions, so they agree.

export const RECORDING_FORMAT = 'browserfn.dev/recording/v1';

/** The rrweb custom event (type 5) that ends a recording cut at its size cap. */
export const TRUNCATED_EVENT_TAG = 'browserfn.recording-truncated';

export interface RecordedPage {
  /** The page's CDP target ID. */
  pageId: string;
  /** The page's last top-level URL. */
  url: string;
  startTimeMs: number;
  endTimeMs: number;
  /** Segment files of its HLS playlist, in order (names as `segmentFile` makes them). */
  segments: string[];
  /** Whether its MP4 was made. */
  mp4: boolean;
}

export interface RecordingManifest {
  format: typeof RECORDING_FORMAT;
  pages: RecordedPage[];
  rrwebEvents: number;
  /** Set when the size cap cut the recording: nothing after `atMs` was kept. */
  truncated?: { atMs: number; maxBytes: number };
  /** Why there is no video (ffmpeg missing or failed), when there is none. */
  videoError?: string;
  /** When the pod finished the recording. */
  completedAt: string;
}

/** One rrweb event as stored; served with the session ID added. */
export interface StoredRrwebEvent {
  type: number;
  data: Record<string, unknown>;
  timestamp: number;
  pageId: string;
}

export const MANIFEST_FILE = 'manifest.json';
export const EVENTS_FILE = 'events.json';

const PAGE_ID = /^[0-9A-Fa-f]{1,64}$/;
const SEGMENT = /^segment-\d{3,6}\.ts$/;

export const isPageId = (value: string): boolean => PAGE_ID.test(value);
export const isSegmentName = (value: string): boolean => SEGMENT.test(value);

export const playlistFile = (pageId: string): string => `${pageId.toLowerCase()}.m3u8`;
export const mp4File = (pageId: string): string => `${pageId.toLowerCase()}.mp4`;
export const segmentFile = (pageId: string, segment: string): string => `${pageId.toLowerCase()}.${segment}`;

/** Whether a pod may upload a file of this name (one key segment: lower-case, no path). */
export function isRecordingFile(name: string): boolean {
  if (name === MANIFEST_FILE || name === EVENTS_FILE) return true;
  const match = /^([0-9a-f]{1,64})\.(.+)$/.exec(name);
  return !!match && (match[2] === 'm3u8' || match[2] === 'mp4' || isSegmentName(match[2]));
}
