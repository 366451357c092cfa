// The wire shapes of a session's recording, as @browserbasehq/sdk reads them: rrweb events,
// the replay's pages, and the MP4 downloads. URLs are absolute façade URLs (`base` is the origin
// the request came to); they answer with the API key, like every route.
import type { RecordingManifest, StoredRrwebEvent } from '../../schemas/recording.js';

export interface ReplayPageView {
  pageId: string;
  /** The page's HLS playlist. */
  url: string;
  startTimeMs: number;
  endTimeMs: number;
  /** browserfn: the page's last top-level URL. */
  pageUrl: string;
}

export interface RecordingDownloadView {
  pageId: string;
  status: 'NOT_REQUESTED' | 'PENDING' | 'COMPLETED' | 'FAILED';
  completedAt?: string;
  downloadUrl?: string;
}

const sessionPath = (base: string, sessionId: string) => `${base}/v1/sessions/${sessionId}`;

export function recordingEventsView(sessionId: string, events: StoredRrwebEvent[]) {
  return events.map(({ type, data, timestamp, pageId }) => ({ type, data, timestamp, sessionId, pageId }));
}

export function replaysView(base: string, sessionId: string, manifest: RecordingManifest | undefined) {
  const pages: ReplayPageView[] = (manifest?.pages ?? []).map((page) => ({
    pageId: page.pageId,
    url: `${sessionPath(base, sessionId)}/replays/${page.pageId}`,
    startTimeMs: page.startTimeMs,
    endTimeMs: page.endTimeMs,
    pageUrl: page.url,
  }));
  return { pageCount: pages.length, pages, ...(manifest?.truncated ? { truncated: manifest.truncated } : {}), ...(manifest?.videoError ? { videoError: manifest.videoError } : {}) };
}

/** MP4s are made as the session ends: each recorded page's is COMPLETED, or FAILED when it could not be made. */
export function downloadsView(base: string, sessionId: string, manifest: RecordingManifest | undefined): { downloads: RecordingDownloadView[] } {
  return {
    downloads: (manifest?.pages ?? []).map((page) =>
      page.mp4
        ? { pageId: page.pageId, status: 'COMPLETED', completedAt: manifest!.completedAt, downloadUrl: `${sessionPath(base, sessionId)}/recording/downloads/${page.pageId}` }
        : { pageId: page.pageId, status: 'FAILED' },
    ),
  };
}
