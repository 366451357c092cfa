// Every page's screencast (CDP Page.startScreencast) into a video of its own: a frame is acked once
// the page's encoder took it, so a slow encoder slows the screencast, never the page. Frames of a
// page that shows no document yet (the first tab, a new page before it navigates) are left out, so
// a session whose handler never loads a page has no video. A page's video has its page's shape, as
// its first frame shows it (the window's size minus what of it is not the page, or a size the
// handler emulates), so it is not padded out to a size nobody asked for.
import { join } from 'node:path';
import { FrameEncoder, type EncodedPage } from './frame-encoder.js';
import type { PageInstrument, PageTarget } from './page-instrument.js';

export interface ScreencastOptions {
  ffmpegPath: string;
  /** Each page's files go to a folder of its own under it. */
  dir: string;
  /** The largest frame and video: larger pages are scaled down to fit. */
  maxSize: Size;
  /** Whether frames may still be kept (the size cap); checked for every frame. */
  accepting: () => boolean;
  /** Called when a page's video failed (ffmpeg missing or broken), once per page. */
  onFailure: (why: string) => void;
}

interface Size {
  width: number;
  height: number;
}

export interface CapturedPage {
  pageId: string;
  url: string;
  startTimeMs: number;
  endTimeMs: number;
  dir: string;
  encoded: EncodedPage;
  failure?: string;
}

interface PageVideo {
  page: PageTarget;
  url: string;
  dir: string;
  /** Started with the page's first frame: pages that never paint cost no ffmpeg. */
  encoder: FrameEncoder | undefined;
  startTimeMs: number | undefined;
  endTimeMs: number | undefined;
  closedAt: number | undefined;
  reportedFailure: boolean;
}

const JPEG_QUALITY = 70;

export class ScreencastCapture implements PageInstrument {
  readonly #videos = new Map<string, PageVideo>();

  constructor(private readonly options: ScreencastOptions) {}

  async attach(page: PageTarget): Promise<void> {
    if (!this.options.accepting()) return;
    const { width, height } = this.options.maxSize;
    const dir = join(this.options.dir, page.targetId.toLowerCase());
    this.#videos.set(page.sessionId, { page, url: '', dir, encoder: undefined, startTimeMs: undefined, endTimeMs: undefined, closedAt: undefined, reportedFailure: false });
    await page.send('Page.startScreencast', { format: 'jpeg', quality: JPEG_QUALITY, maxWidth: width, maxHeight: height, everyNthFrame: 1 });
  }

  onPageEvent(page: PageTarget, method: string, params: Record<string, unknown>): void {
    const video = this.#videos.get(page.sessionId);
    if (!video) return;
    if (method === 'Page.frameNavigated') {
      const frame = params.frame as { parentId?: string; url?: string } | undefined;
      if (frame && !frame.parentId && frame.url) video.url = frame.url;
    } else if (method === 'Page.screencastFrame') {
      void this.#onFrame(page, video, params);
    }
  }

  detach(page: PageTarget): void {
    const video = this.#videos.get(page.sessionId);
    if (video) video.closedAt ??= Date.now();
  }

  async withdraw(page: PageTarget): Promise<void> {
    const video = this.#videos.get(page.sessionId);
    this.#videos.delete(page.sessionId);
    // A page that painted already has an encoder: it ends, its files are not kept.
    if (video?.encoder) void video.encoder.finish(video.endTimeMs ?? Date.now()).catch(() => undefined);
    await page.send('Page.stopScreencast');
  }

  /** Stops every page's screencast (the size cap was reached); what was encoded is kept. */
  stopScreencasts(): void {
    for (const video of this.#videos.values()) void video.page.send('Page.stopScreencast').catch(() => undefined);
  }

  /** Ends every page's video at `atMs` (or when its page closed) and says what the pages that painted produced. */
  async finish(atMs: number): Promise<CapturedPage[]> {
    const painted = [...this.#videos.values()].filter((video) => video.encoder);
    return Promise.all(
      painted.map(async (video) => {
        const end = Math.max(video.endTimeMs!, Math.min(atMs, video.closedAt ?? atMs));
        const encoded = await video.encoder!.finish(end);
        const failure = video.encoder!.failure;
        return { pageId: video.page.targetId, url: video.url, startTimeMs: video.startTimeMs!, endTimeMs: end, dir: video.dir, encoded, ...(failure ? { failure } : {}) };
      }),
    );
  }

  /** Bytes of every page's files so far. */
  bytesOnDisk(): number {
    let total = 0;
    for (const video of this.#videos.values()) total += video.encoder?.bytesOnDisk() ?? 0;
    return total;
  }

  /**
   * Each open page that has navigated but not painted a frame yet (a visit shorter than the
   * screencast's first frame) gets a screenshot as its frame, so the page the handler left is in
   * the video. Called at the session's end, while the browser still runs.
   */
  async paintUnpainted(): Promise<void> {
    const unpainted = [...this.#videos.values()].filter((video) => !video.encoder && showsPage(video));
    await Promise.all(
      unpainted.map(async (video) => {
        try {
          const metrics = (await video.page.send('Page.getLayoutMetrics')) as { cssVisualViewport?: { clientWidth?: number; clientHeight?: number } };
          const shot = (await video.page.send('Page.captureScreenshot', { format: 'jpeg', quality: JPEG_QUALITY })) as { data?: unknown };
          const shown = metrics.cssVisualViewport && { width: metrics.cssVisualViewport.clientWidth, height: metrics.cssVisualViewport.clientHeight };
          if (typeof shot.data === 'string') await this.#addFrame(video, shot.data, Date.now(), shown);
        } catch {
          // The page went meanwhile: it has no video, as before.
        }
      }),
    );
  }

  async #onFrame(page: PageTarget, video: PageVideo, params: Record<string, unknown>): Promise<void> {
    const metadata = params.metadata as { timestamp?: number; deviceWidth?: number; deviceHeight?: number } | undefined;
    const atMs = typeof metadata?.timestamp === 'number' ? Math.round(metadata.timestamp * 1000) : Date.now();
    await this.#addFrame(video, String(params.data), atMs, { width: metadata?.deviceWidth, height: metadata?.deviceHeight });
    await page.send('Page.screencastFrameAck', { sessionId: params.sessionId }).catch(() => undefined);
  }

  /** `shown`: the size of the page the frame shows (CSS pixels), which the page's first frame gives its video. */
  async #addFrame(video: PageVideo, jpegBase64: string, atMs: number, shown: Partial<Size> = {}): Promise<void> {
    if (!showsPage(video) || !this.options.accepting()) return;
    video.startTimeMs ??= atMs;
    video.endTimeMs = atMs;
    const { ffmpegPath, maxSize } = this.options;
    video.encoder ??= new FrameEncoder({ ffmpegPath, dir: video.dir, segmentBaseUrl: `${video.page.targetId}/`, ...videoSize(shown, maxSize) });
    await video.encoder.addFrame(Buffer.from(jpegBase64, 'base64'), atMs);
    if (video.encoder.failure && !video.reportedFailure) {
      video.reportedFailure = true;
      this.options.onFailure(video.encoder.failure);
    }
  }
}

/** An open page that has left its first blank page: what a video shows. */
function showsPage(video: PageVideo): boolean {
  return video.url !== '' && video.url !== 'about:blank' && video.closedAt === undefined;
}

/** A page's video: `shown`'s shape, as large as it within `maxSize` (or `maxSize` when it is not known), in even pixels as H.264 needs. */
function videoSize(shown: Partial<Size>, maxSize: Size): Size {
  const page = shown.width && shown.height && shown.width > 0 && shown.height > 0 ? { width: shown.width, height: shown.height } : maxSize;
  const scale = Math.min(1, maxSize.width / page.width, maxSize.height / page.height);
  const even = (n: number) => Math.max(2, Math.floor((n * scale) / 2) * 2);
  return { width: even(page.width), height: even(page.height) };
}
