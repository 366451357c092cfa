// The video player of a session's recording: the pages recorded (GET /v1/sessions/{id}/replays)
// and each page's MP4 (recording/downloads). A <video> cannot send the API key, so the MP4 is
// fetched with it and played from a Blob URL. A session without a recording says so.
import { getBlob, getJson, isMissing, postJson, q } from './api.js';
import { h, show } from './dom.js';
import type { RecordingDownloads, Replays } from './types.js';
import { pause } from './wait.js';

type Download = RecordingDownloads['downloads'][number];

const POLL_MS = 1000;
const POLL_TRIES = 120;

export function playerView(sessionId: string, signal: AbortSignal): HTMLElement {
  const section = h('div', { class: 'player' }, h('p', { class: 'loading' }, 'Looking for a recording…'));
  load(section, sessionId, signal).catch((err: unknown) => {
    if (signal.aborted) return;
    show(section, h('p', { class: 'empty' }, isMissing(err) ? 'No recording for this session.' : `The recording could not be loaded: ${err instanceof Error ? err.message : String(err)}`));
  });
  return section;
}

async function load(section: HTMLElement, sessionId: string, signal: AbortSignal): Promise<void> {
  const replays = await getJson<Replays>(`/v1/sessions/${q(sessionId)}/replays`, signal);
  if (replays.pages.length === 0) return show(section, h('p', { class: 'empty' }, 'No recording for this session.'));
  show(section, h('p', { class: 'loading' }, 'Preparing the video…'));
  const downloads = await readyDownloads(sessionId, signal);
  const video = h('video', { controls: true, preload: 'auto', playsinline: true });
  const caption = h('p', { class: 'video-caption' });
  const name = (i: number) => `Page ${i + 1}${replays.pages[i].pageUrl ? ` (${replays.pages[i].pageUrl})` : ''}`;
  let blobUrl: string | undefined;
  signal.addEventListener('abort', () => blobUrl && URL.revokeObjectURL(blobUrl), { once: true });

  const play = async (pageIndex: number) => {
    const page = replays.pages[pageIndex];
    const download = downloads.find((d) => d.pageId === page.pageId);
    if (!download?.downloadUrl) return show(caption, `No video of page ${pageIndex + 1} (${download?.status ?? 'not recorded'}).`);
    show(caption, `Loading ${name(pageIndex)}…`);
    // The URL is the façade's own; its path is asked of this origin, whatever host name it names.
    const url = new URL(download.downloadUrl, location.href);
    const blob = await getBlob(url.pathname + url.search, signal);
    if (blobUrl) URL.revokeObjectURL(blobUrl);
    blobUrl = URL.createObjectURL(blob);
    video.src = blobUrl;
    video.setAttribute('aria-label', `Recording of ${name(pageIndex)}`);
    show(caption, `${name(pageIndex)} of ${replays.pages.length} (${((page.endTimeMs - page.startTimeMs) / 1000).toFixed(1)} s)`);
  };

  const chooser =
    replays.pages.length > 1
      ? h(
          'ol',
          { class: 'pages', 'aria-label': 'Recorded pages' },
          replays.pages.map((_page, i) => h('li', {}, h('button', { type: 'button', onclick: () => void play(i).catch((err: unknown) => show(caption, String(err))) }, name(i)))),
        )
      : null;
  show(section, video, caption, chooser);
  await play(0);
}

/** The MP4 of each page; asks for them to be made when none is ready yet, then waits. */
async function readyDownloads(sessionId: string, signal: AbortSignal): Promise<Download[]> {
  const path = `/v1/sessions/${q(sessionId)}/recording/downloads`;
  let { downloads } = await getJson<RecordingDownloads>(path, signal);
  if (downloads.some((d) => d.downloadUrl)) return downloads;
  ({ downloads } = await postJson<RecordingDownloads>(path, signal));
  for (let i = 0; i < POLL_TRIES && !downloads.some((d) => d.downloadUrl || /FAIL|ERROR/i.test(d.status)); i++) {
    await pause(POLL_MS, signal);
    ({ downloads } = await getJson<RecordingDownloads>(path, signal));
  }
  return downloads;
}
