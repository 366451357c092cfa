// One page's video: JPEG frames, arriving whenever the page paints, piped into ffmpeg at a constant
// frame rate (the last frame is repeated until the next one is due), so the video keeps real time.
// ffmpeg writes an HLS playlist with its segments and an MP4 from one encoding (tee muxer).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';

export const REPLAY_FPS = 10;
const SEGMENT_SECONDS = 2;
/** How long a finishing ffmpeg may take before it is killed (its files are then incomplete). */
const FINISH_TIMEOUT_MS = 30_000;

export interface EncoderOptions {
  ffmpegPath: string;
  /** Where the page's files go: index.m3u8, segment-NNN.ts, page.mp4. */
  dir: string;
  /** Prefix of the segment URIs in the playlist (the playlist is served at .../replays/{pageId}). */
  segmentBaseUrl: string;
  width: number;
  height: number;
}

export interface EncodedPage {
  segments: string[];
  mp4: boolean;
}

export class FrameEncoder {
  readonly #process: ChildProcess;
  readonly #dir: string;
  readonly #exited: Promise<number | null>;
  #stderr = '';
  #failure: string | undefined;
  #startMs: number | undefined;
  #written = 0;
  #last: Buffer | undefined;
  #ended = false;

  constructor(options: EncoderOptions) {
    this.#dir = options.dir;
    mkdirSync(options.dir, { recursive: true });
    const { width, height } = options;
    const outputs = [
      `[f=hls:hls_time=${SEGMENT_SECONDS}:hls_list_size=0:hls_playlist_type=vod:hls_segment_filename=${join(options.dir, 'segment-%03d.ts')}:hls_base_url=${options.segmentBaseUrl}]${join(options.dir, 'index.m3u8')}`,
      `[f=mp4:movflags=+faststart]${join(options.dir, 'page.mp4')}`,
    ].join('|');
    // prettier-ignore
    const args = [
      '-hide_banner', '-loglevel', 'error',
      '-f', 'image2pipe', '-framerate', String(REPLAY_FPS), '-c:v', 'mjpeg', '-i', 'pipe:0',
      '-vf', `scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2,format=yuv420p`,
      '-c:v', 'libx264', '-preset', 'ultrafast', '-g', String(REPLAY_FPS * SEGMENT_SECONDS), '-r', String(REPLAY_FPS),
      '-flags', '+global_header', '-map', '0:v', '-f', 'tee', outputs,
    ];
    this.#process = spawn(options.ffmpegPath, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    this.#process.stderr!.on('data', (chunk: Buffer) => (this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-2000)));
    this.#process.stdin!.on('error', () => undefined);
    this.#exited = new Promise((resolve) => {
      this.#process.once('error', (error) => {
        this.#failure = `ffmpeg could not run (${options.ffmpegPath}): ${error.message}`;
        resolve(null);
      });
      this.#process.once('exit', (code) => resolve(code));
    });
  }

  /** Why the video failed, once it did. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** Adds the frame painted at `atMs`; resolves once ffmpeg took it (the caller acks the frame then). */
  async addFrame(jpeg: Buffer, atMs: number): Promise<void> {
    if (this.#ended || this.#failure) return;
    this.#startMs ??= atMs;
    const due = Math.floor(((atMs - this.#startMs) * REPLAY_FPS) / 1000);
    // Frames painted faster than the frame rate replace each other; the latest is written when due.
    const writable = this.#fill(due);
    this.#last = jpeg;
    if (this.#written <= due) this.#write(jpeg);
    // An ffmpeg that died never drains its pipe.
    if (!writable || this.#process.stdin!.writableNeedDrain) await Promise.race([once(this.#process.stdin!, 'drain').catch(() => undefined), this.#exited]);
  }

  /** Bytes written so far under its folder. */
  bytesOnDisk(): number {
    try {
      return readdirSync(this.#dir).reduce((sum, name) => sum + statSync(join(this.#dir, name)).size, 0);
    } catch {
      return 0;
    }
  }

  /** Pads the video to `atMs` with its last frame, lets ffmpeg finish its files and says what it made. */
  async finish(atMs: number): Promise<EncodedPage> {
    if (!this.#ended) {
      this.#ended = true;
      if (this.#startMs !== undefined && !this.#failure) this.#fill(Math.max(this.#written, Math.ceil(((atMs - this.#startMs) * REPLAY_FPS) / 1000)));
      this.#process.stdin!.end();
    }
    const timer = setTimeout(() => this.#process.kill('SIGKILL'), FINISH_TIMEOUT_MS);
    const code = await this.#exited;
    clearTimeout(timer);
    if (code !== 0 && !this.#failure) this.#failure = `ffmpeg exited with ${code ?? 'a signal'}: ${this.#stderr.trim().split('\n').slice(-3).join(' ') || 'no message'}`;
    if (this.#failure || this.#written === 0) return { segments: [], mp4: false };
    const files = readdirSync(this.#dir);
    return { segments: files.filter((name) => /^segment-\d+\.ts$/.test(name)).sort(), mp4: files.includes('page.mp4') };
  }

  /** Repeats the last frame until `count` frames are written; false when the pipe is full. */
  #fill(count: number): boolean {
    let writable = true;
    while (this.#last && this.#written < count) writable = this.#write(this.#last);
    return writable;
  }

  #write(jpeg: Buffer): boolean {
    this.#written += 1;
    return this.#process.stdin!.write(jpeg);
  }
}
