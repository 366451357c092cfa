// A page's video keeps real time however irregularly frames arrive (real ffmpeg), a finished
// recording over its cap loses its MP4 and last segments, its playlist cut to match, and a page
// left before its first frame still gets one.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FrameEncoder, REPLAY_FPS } from '../../src/runtime/cdp-recorder/frame-encoder.js';
import { fitPages } from '../../src/runtime/cdp-recorder/recording-fit.js';
import { ScreencastCapture } from '../../src/runtime/cdp-recorder/screencast-capture.js';
import type { PageTarget } from '../../src/runtime/cdp-recorder/page-instrument.js';

const run = promisify(execFile);

async function jpeg(dir: string, color: string): Promise<Buffer> {
  const file = join(dir, `${color}.jpg`);
  await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `color=c=${color}:size=320x240`, '-frames:v', '1', file]);
  return readFileSync(file);
}

async function videoDimensions(file: string): Promise<string> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'csv=p=0:s=x', file]);
  return stdout.trim();
}

async function probe(file: string): Promise<{ duration: number; frames: number }> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-count_frames', '-show_entries', 'stream=nb_read_frames:format=duration', '-of', 'json', file]);
  const parsed = JSON.parse(stdout) as { streams: { nb_read_frames: string }[]; format: { duration: string } };
  return { duration: Number(parsed.format.duration), frames: Number(parsed.streams[0].nb_read_frames) };
}

describe('recording: frame encoder and cap fitting (ffmpeg)', function () {
  this.timeout(120_000);
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'browserfn-encoder-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('repeats the last frame until the next is due, so 3 frames over 7 s make 7 s of video', async () => {
    const [red, blue, green] = await Promise.all([jpeg(dir, 'red'), jpeg(dir, 'blue'), jpeg(dir, 'green')]);
    const out = join(dir, 'page');
    const encoder = new FrameEncoder({ ffmpegPath: '/usr/bin/ffmpeg', dir: out, segmentBaseUrl: 'ABC/', width: 320, height: 240 });
    const t0 = 1_700_000_000_000;
    await encoder.addFrame(red, t0);
    await encoder.addFrame(blue, t0 + 500);
    await encoder.addFrame(green, t0 + 4000);
    const encoded = await encoder.finish(t0 + 7000);
    assert.equal(encoder.failure, undefined);
    assert.ok(encoded.mp4);
    assert.ok(encoded.segments.length >= 3, `2-second segments of 7 s: ${encoded.segments.join(', ')}`);
    const mp4 = await probe(join(out, 'page.mp4'));
    assert.equal(mp4.frames, 7 * REPLAY_FPS);
    assert.ok(Math.abs(mp4.duration - 7) < 0.2, `duration ${mp4.duration}`);
    const playlist = readFileSync(join(out, 'index.m3u8'), 'utf8');
    assert.match(playlist, /^ABC\/segment-000\.ts$/m);
    assert.match(playlist, /#EXT-X-ENDLIST/);

    // Room for the playlist and its first segment only: the MP4 and later segments go.
    const page = { pageId: 'ABC', url: 'http://x/', startTimeMs: t0, endTimeMs: t0 + 7000, dir: out, encoded };
    const room = 16 * 1024 + statSync(join(out, 'index.m3u8')).size + statSync(join(out, encoded.segments[0])).size;
    const fitted = fitPages([page], room + 100, 100);
    assert.equal(fitted.pages.length, 1);
    assert.deepEqual(fitted.pages[0].segments, [encoded.segments[0]]);
    assert.equal(fitted.pages[0].mp4, false);
    assert.ok(fitted.cutAtMs !== undefined && fitted.cutAtMs > t0 && fitted.cutAtMs < t0 + 7000, `cut at ${fitted.cutAtMs}`);
    const cut = fitted.pages[0].playlist.toString('utf8');
    assert.equal(cut.match(/^ABC\/segment-\d+\.ts$/gm)?.length, 1, cut);
    assert.match(cut, /#EXT-X-ENDLIST\n$/);

    // With room for everything nothing is cut.
    const whole = fitPages([page], 100 * 1024 * 1024, 100);
    assert.equal(whole.cutAtMs, undefined);
    assert.deepEqual(whole.pages[0].segments, encoded.segments);
    assert.equal(whole.pages[0].mp4, true);
  });

  it('gives a page that navigated but never painted a screenshot as its frame at the end, and leaves the others alone', async () => {
    const shot = (await jpeg(dir, 'red')).toString('base64');
    const sent: string[] = [];
    const page = (targetId: string): PageTarget => ({
      targetId,
      sessionId: `session-${targetId}`,
      send: async (method) => {
        sent.push(`${targetId} ${method}`);
        return method === 'Page.captureScreenshot' ? { data: shot } : {};
      },
    });
    const capture = new ScreencastCapture({ ffmpegPath: '/usr/bin/ffmpeg', dir, maxSize: { width: 320, height: 240 }, accepting: () => true, onFailure: () => undefined });
    const [visited, painted, blank] = [page('VISITED'), page('PAINTED'), page('BLANK')];
    for (const target of [visited, painted, blank]) await capture.attach(target);
    const navigated = (target: PageTarget, url: string) => capture.onPageEvent(target, 'Page.frameNavigated', { frame: { url } });
    navigated(visited, 'http://example.test/short-visit');
    navigated(painted, 'http://example.test/long-visit');
    capture.onPageEvent(painted, 'Page.screencastFrame', { data: shot, sessionId: 1, metadata: { timestamp: Date.now() / 1000 } });
    navigated(blank, 'about:blank');
    // The frame is acknowledged once its encoder took it.
    while (!sent.includes('PAINTED Page.screencastFrameAck')) await new Promise((resolve) => setTimeout(resolve, 10));
    sent.length = 0;

    await capture.paintUnpainted();
    assert.deepEqual(sent, ['VISITED Page.getLayoutMetrics', 'VISITED Page.captureScreenshot'], 'only the page that navigated and never painted is shot');
    const pages = await capture.finish(Date.now() + 1000);
    assert.deepEqual(pages.map((p) => p.pageId).sort(), ['PAINTED', 'VISITED']);
    const short = pages.find((p) => p.pageId === 'VISITED')!;
    assert.equal(short.url, 'http://example.test/short-visit');
    assert.equal(short.failure, undefined);
    assert.ok(short.encoded.segments.length > 0 && short.encoded.mp4, `the short visit has a video: ${JSON.stringify(short.encoded)}`);
  });

  it('says why when ffmpeg cannot run, and makes no video', async () => {
    const encoder = new FrameEncoder({ ffmpegPath: join(dir, 'no-ffmpeg'), dir: join(dir, 'page'), segmentBaseUrl: 'ABC/', width: 320, height: 240 });
    await encoder.addFrame(await jpeg(dir, 'red'), Date.now());
    const encoded = await encoder.finish(Date.now() + 1000);
    assert.deepEqual(encoded, { segments: [], mp4: false });
    assert.match(encoder.failure ?? '', /ffmpeg could not run .*no-ffmpeg.*ENOENT/);
  });

  it("gives each page's video its page's shape, from its first frame or its size at the screenshot, within the largest size", async () => {
    const frame = (await jpeg(dir, 'blue')).toString('base64');
    const page = (targetId: string): PageTarget => ({
      targetId,
      sessionId: `session-${targetId}`,
      send: async (method) => {
        if (method === 'Page.getLayoutMetrics') return { cssVisualViewport: { clientWidth: 400, clientHeight: 300 } };
        return method === 'Page.captureScreenshot' ? { data: frame } : {};
      },
    });
    const capture = new ScreencastCapture({ ffmpegPath: '/usr/bin/ffmpeg', dir, maxSize: { width: 1280, height: 720 }, accepting: () => true, onFailure: () => undefined });
    // Chromium's default window (no viewport asked), a window larger than the largest video, and a page only shot at the end.
    const [small, large, shot] = [page('SMALL'), page('LARGE'), page('SHOT')];
    for (const target of [small, large, shot]) {
      await capture.attach(target);
      capture.onPageEvent(target, 'Page.frameNavigated', { frame: { url: 'http://example.test/' } });
    }
    const now = Date.now() / 1000;
    capture.onPageEvent(small, 'Page.screencastFrame', { data: frame, sessionId: 1, metadata: { timestamp: now, deviceWidth: 780, deviceHeight: 493 } });
    capture.onPageEvent(large, 'Page.screencastFrame', { data: frame, sessionId: 2, metadata: { timestamp: now, deviceWidth: 1920, deviceHeight: 1113 } });
    await capture.paintUnpainted();
    const pages = await capture.finish(Date.now() + 1000);
    const sizes: Record<string, string> = {};
    for (const captured of pages) {
      assert.equal(captured.failure, undefined);
      sizes[captured.pageId] = await videoDimensions(join(captured.dir, 'page.mp4'));
    }
    // Even pixels (H.264): 493 rows become 492; 1920x1113 scaled to 720 rows keeps its shape.
    assert.deepEqual(sizes, { SMALL: '780x492', LARGE: '1242x720', SHOT: '400x300' });
  });
});
