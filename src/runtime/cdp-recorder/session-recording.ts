// A session's recording (browserSettings.recordSession): every page's video and its rrweb events,
// within one size cap. Once the files and events near the cap, screencasts stop, later events are
// dropped and a marker says where it was cut. Nothing here can fail the invocation: a recording
// that cannot be made is a session without video, and the log says why.
import { join } from 'node:path';
import {
  EVENTS_FILE,
  MANIFEST_FILE,
  RECORDING_FORMAT,
  TRUNCATED_EVENT_TAG,
  mp4File,
  playlistFile,
  segmentFile,
  type RecordedPage,
  type RecordingManifest,
} from '../../schemas/recording.js';
import { RrwebCapture } from './rrweb-capture.js';
import { ScreencastCapture } from './screencast-capture.js';
import { fitPages } from './recording-fit.js';
import type { PageInstrument } from './page-instrument.js';

/** The cap leaves this share for what finishing the files adds (the MP4's index, the last segment). */
const FINISH_RESERVE = 0.1;
const MEASURE_EVERY_MS = 1000;
const MARKER_RESERVE = 1024;
/** Video at most this size; smaller pages keep their own. */
const MAX_VIDEO = { width: 1280, height: 720 };

export interface RecordingOptions {
  ffmpegPath: string;
  dir: string;
  maxBytes: number;
  /** A line for the pod's log (why there is no video, where the cap cut). */
  log: (message: string, fields?: Record<string, unknown>) => void;
}

/** A file to upload: its name in the store and where it is (or its bytes). */
export interface RecordingFile {
  name: string;
  path?: string;
  bytes?: Buffer;
}

export class SessionRecording {
  readonly #screencast: ScreencastCapture;
  readonly #rrweb: RrwebCapture;
  #maxBytes = 0;
  #budget = 0;
  #rrwebChars = 0;
  #videoBytes = 0;
  #measuredAt = 0;
  #cutAtMs: number | undefined;
  #videoError: string | undefined;

  constructor(private readonly options: RecordingOptions) {
    this.limitTo(options.maxBytes);
    this.#screencast = new ScreencastCapture({
      ffmpegPath: options.ffmpegPath,
      dir: options.dir,
      maxSize: MAX_VIDEO,
      accepting: () => this.#withinBudget(0),
      onFailure: (why) => this.#noVideo(why),
    });
    this.#rrweb = new RrwebCapture({ admit: (chars) => this.#withinBudget(chars) && ((this.#rrwebChars += chars), true) });
  }

  /** Sets the size cap: a browser's recording starts before its invocation says how large it may be. */
  limitTo(maxBytes: number): void {
    this.#maxBytes = maxBytes;
    this.#budget = maxBytes * (1 - FINISH_RESERVE);
  }

  get instruments(): PageInstrument[] {
    return [this.#screencast, this.#rrweb];
  }

  /** At the session's end, while the browser still runs: a page visited too briefly for a frame gets one (ScreencastCapture.paintUnpainted). */
  async paintUnpaintedPages(): Promise<void> {
    if (this.#cutAtMs === undefined) await this.#screencast.paintUnpainted();
  }

  /** Ends the videos and lists the files to store, the manifest last; none when nothing was recorded. */
  async finish(atMs: number): Promise<RecordingFile[]> {
    const captured = await this.#screencast.finish(this.#cutAtMs ?? atMs);
    for (const page of captured) if (page.failure) this.#noVideo(page.failure);
    // The events as they are, and room for the marker a cut adds to them.
    const eventsBytes = Buffer.byteLength(JSON.stringify(this.#rrweb.events())) + MARKER_RESERVE;
    const fitted = fitPages(captured.filter((page) => page.encoded.segments.length > 0), this.#maxBytes, eventsBytes);
    if (fitted.cutAtMs !== undefined) this.#cut(fitted.cutAtMs);
    const events = this.#rrweb.events();
    const eventsFile = Buffer.from(JSON.stringify(events));
    const files: RecordingFile[] = [];
    const pages: RecordedPage[] = [];
    for (const { page, playlist, segments, mp4 } of fitted.pages) {
      files.push({ name: playlistFile(page.pageId), bytes: playlist });
      for (const segment of segments) files.push({ name: segmentFile(page.pageId, segment), path: join(page.dir, segment) });
      if (mp4) files.push({ name: mp4File(page.pageId), path: join(page.dir, 'page.mp4') });
      pages.push({ pageId: page.pageId, url: page.url, startTimeMs: page.startTimeMs, endTimeMs: page.endTimeMs, segments, mp4 });
    }
    if (pages.length === 0 && events.length === 0 && !this.#videoError) return [];
    files.push({ name: EVENTS_FILE, bytes: eventsFile });
    const manifest: RecordingManifest = { format: RECORDING_FORMAT, pages, rrwebEvents: events.length, completedAt: new Date().toISOString() };
    if (this.#cutAtMs !== undefined) manifest.truncated = { atMs: this.#cutAtMs, maxBytes: this.#maxBytes };
    if (this.#videoError) manifest.videoError = this.#videoError;
    files.push({ name: MANIFEST_FILE, bytes: Buffer.from(JSON.stringify(manifest)) });
    return files;
  }

  /** The first reason there is no video, logged once. */
  #noVideo(why: string): void {
    if (this.#videoError) return;
    this.#videoError = why;
    this.options.log('session recording: no video for this session', { why });
  }

  /** Whether `chars` more fit; cuts the recording the first time they do not. */
  #withinBudget(chars: number): boolean {
    if (this.#cutAtMs !== undefined) return false;
    const now = Date.now();
    if (now - this.#measuredAt >= MEASURE_EVERY_MS) {
      this.#measuredAt = now;
      this.#videoBytes = this.#screencast.bytesOnDisk();
    }
    if (this.#videoBytes + this.#rrwebChars + chars <= this.#budget) return true;
    this.#cut(now);
    return false;
  }

  /** Stops taking frames and events; the rrweb events end with a marker at `atMs`. */
  #cut(atMs: number): void {
    if (this.#cutAtMs !== undefined) return;
    this.#cutAtMs = atMs;
    this.#screencast.stopScreencasts();
    const last = this.#rrweb.events().at(-1);
    this.#rrweb.markCut(TRUNCATED_EVENT_TAG, { maxBytes: this.#maxBytes }, atMs, last?.pageId ?? '');
    this.options.log('session recording: cut at its size cap (BROWSERFN_RECORDING_MAX_MB)', { maxBytes: this.#maxBytes, atMs });
  }
}
