// Session recording end to end on `serve` (real Chromium, real ffmpeg): a Function that animates two
// pages of a local page server gives two replay pages whose HLS playlists and MP4s ffprobe reads as
// video, and rrweb events with full snapshots (a custom element marked as one) — all read with the unmodified @browserbasehq/sdk
// client. recordSession:false records nothing, the size cap cuts with a marker, another project
// gets 404, and retention deletes the recording with the rest of the invocation.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Browserbase from '@browserbasehq/sdk';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';
import { startPageServer, type PageServer } from '../support/http-fixtures.js';

const run = promisify(execFile);

const FN = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';

defineFn('two-pages', async (ctx, params: { url: string; frames: number }) => {
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  const context = browser.contexts()[0];
  const pageIds: string[] = [];
  const sizes: [number, number][] = [];
  for (const [index, path] of ['/one', '/two'].entries()) {
    const page = index === 0 ? (context.pages()[0] ?? (await context.newPage())) : await context.newPage();
    await page.goto(params.url + path);
    await page.click('#add');
    // The page animates: once it painted this many frames there is video to see.
    await page.waitForFunction((n) => (window as any).painted >= n, params.frames, { polling: 100 });
    const cdp = await context.newCDPSession(page);
    pageIds.push(((await cdp.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } }).targetInfo.targetId);
    sizes.push(await page.evaluate(() => [innerWidth, innerHeight] as [number, number]));
  }
  return { pageIds, sizes };
});
`;

// A link with target=_blank opens its page without an opener: a renderer of its own, which exists only once the page may run.
const POPUP_FN = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';

defineFn('popup', async (ctx, params: { url: string }) => {
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  const page = browser.contexts()[0].pages()[0];
  await page.goto(params.url + '/opener');
  const [popup] = await Promise.all([page.waitForEvent('popup', { timeout: 30000 }), page.click('#open')]);
  await popup.waitForFunction(() => (window as any).painted >= 20, undefined, { polling: 100 });
  return { title: await popup.title(), url: popup.url() };
});
`;

const PAGE = (title: string) => `<!doctype html><html><head><title>${title}</title></head><body>
<h1>${title}</h1><button id="add" onclick="document.body.appendChild(Object.assign(document.createElement('p'), {textContent: 'added'}))">add</button>
<div id="box" style="width:200px;height:200px"></div><x-card>a custom element</x-card>
<script>
  customElements.define('x-card', class extends HTMLElement {});
  window.painted = 0;
  (function tick() { window.painted++; document.getElementById('box').style.background = 'hsl(' + (window.painted * 7 % 360) + ',80%,50%)'; document.querySelector('h1').textContent = '${title} ' + window.painted; requestAnimationFrame(tick); })();
</script></body></html>`;

interface Probe {
  streams: { codec_type: string; nb_read_frames?: string; width?: number; height?: number }[];
  format: { duration?: string };
}

async function ffprobe(target: string, apiKey?: string): Promise<Probe> {
  const headers = apiKey ? ['-headers', `X-SVC-API-Key: ${apiKey}\r\n`] : [];
  const { stdout } = await run('ffprobe', ['-v', 'error', ...headers, '-count_frames', '-show_entries', 'stream=codec_type,nb_read_frames,width,height:format=duration', '-of', 'json', target], { timeout: 120_000 });
  return JSON.parse(stdout) as Probe;
}

function assertVideo(probe: Probe, what: string): void {
  const video = probe.streams.find((stream) => stream.codec_type === 'video');
  assert.ok(video, `${what} has a video stream`);
  assert.ok(Number(video.nb_read_frames) > 0, `${what} has frames: ${JSON.stringify(probe)}`);
  assert.ok(Number(probe.format.duration) > 0, `${what} has a duration: ${JSON.stringify(probe)}`);
}

interface SnapshotNode {
  tagName?: string;
  isCustom?: boolean;
  childNodes?: SnapshotNode[];
}

const elementsOf = (node: SnapshotNode): SnapshotNode[] => [node, ...(node.childNodes ?? []).flatMap(elementsOf)];

/** Every file of the session's recording in the filesystem artifact store. */
function recordingFiles(svc: TestService, sessionId: string): { name: string; size: number }[] {
  const dir = join(svc.dataDir, 'artifacts', 'recordings', 'default', sessionId);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((name) => ({ name, size: statSync(join(dir, name)).size }));
}

describe('session recording (serve, Chromium, ffmpeg)', function () {
  this.timeout(600_000);
  let svc: TestService | undefined;
  let pages: PageServer;

  before(async () => {
    pages = await startPageServer({ '/one': PAGE('Page one'), '/two': PAGE('Page two'), '/opener': '<!doctype html><a id="open" href="/two" target="_blank">open</a>' });
  });
  after(async () => {
    await pages.close();
  });
  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
  });

  it('records every page as HLS and MP4 with rrweb events, read by @browserbasehq/sdk; recordSession:false records nothing; another project gets 404', async () => {
    svc = await startTestService();
    const build = await publish(svc, writeProject({ 'index.ts': FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const fnId = build.builtFunctions![0].id;
    const invocation = await invokeAndWait(svc, fnId, { params: { url: pages.url, frames: 40 } });
    assert.equal(invocation.status, 'COMPLETED', JSON.stringify(invocation.cause));
    const { pageIds, sizes } = invocation.results as { pageIds: string[]; sizes: [number, number][] };
    const sessionId = invocation.sessionId;
    const client = new Browserbase({ apiKey: svc.apiKey, baseURL: svc.url });

    const replays = await client.sessions.replays.retrieve(sessionId);
    assert.equal(replays.pageCount, 2, JSON.stringify(replays));
    assert.deepEqual(replays.pages.map((page) => page.pageId).sort(), [...pageIds].sort());
    for (const page of replays.pages) {
      assert.ok(page.endTimeMs > page.startTimeMs, JSON.stringify(page));
      assert.equal(page.url, `${svc.url}/v1/sessions/${sessionId}/replays/${page.pageId}`);
      const playlist = await (await client.sessions.replays.retrievePage(sessionId, page.pageId)).text();
      assert.match(playlist, /^#EXTM3U/);
      assert.match(playlist, new RegExp(`^${page.pageId}/segment-\\d+\\.ts$`, 'm'), playlist);
      assert.match(playlist, /#EXT-X-ENDLIST/);
      assertVideo(await ffprobe(page.url, svc.apiKey), `the HLS replay of page ${page.pageId}`);
    }

    const listed = await client.sessions.recording.downloads.list(sessionId);
    const created = await client.sessions.recording.downloads.create(sessionId);
    assert.deepEqual(created, listed);
    assert.deepEqual(listed.downloads.map((d) => d.pageId).sort(), [...pageIds].sort());
    const scratch = mkdtempSync(join(tmpdir(), 'browserfn-recording-'));
    try {
      for (const download of listed.downloads) {
        assert.equal(download.status, 'COMPLETED');
        assert.ok(download.completedAt && download.downloadUrl, JSON.stringify(download));
        const response: Response = await fetch(download.downloadUrl, { headers: { 'x-svc-api-key': svc.apiKey } });
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('content-type'), 'video/mp4');
        const file = join(scratch, `${download.pageId}.mp4`);
        writeFileSync(file, Buffer.from(await response.arrayBuffer()));
        const probe = await ffprobe(file);
        assertVideo(probe, `the MP4 of page ${download.pageId}`);
        // The page's own size (none was asked for here), in even pixels: not padded out to another.
        const [width, height] = sizes[pageIds.indexOf(download.pageId)]!.map((n) => n - (n % 2));
        const video = probe.streams.find((stream) => stream.codec_type === 'video')!;
        assert.deepEqual([video.width, video.height], [width, height], `the MP4 of page ${download.pageId} has its page's size`);
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }

    const events = await client.sessions.recording.retrieve(sessionId);
    assert.ok(events.every((event) => event.sessionId === sessionId && typeof event.timestamp === 'number' && typeof event.type === 'number' && typeof event.data === 'object'));
    for (const pageId of pageIds) {
      const own = events.filter((event) => (event as { pageId?: string }).pageId === pageId);
      assert.ok(own.some((event) => event.type === 2), `a full snapshot of page ${pageId}`);
      assert.ok(own.some((event) => event.type === 3), `incremental events (the click's mutation) of page ${pageId}`);
      // rrweb records from a world of its own, which has no custom element registry of the page's.
      const snapshot = own.find((event) => event.type === 2)!.data as { node: SnapshotNode };
      const elements = elementsOf(snapshot.node);
      assert.equal(elements.find((node) => node.tagName === 'x-card')?.isCustom, true, `the custom element marked as one in page ${pageId}`);
      assert.equal(elements.find((node) => node.tagName === 'div')?.isCustom, undefined);
    }

    const other = new Browserbase({ apiKey: 'other-key', baseURL: svc.url, maxRetries: 0 });
    for (const call of [
      () => other.sessions.recording.retrieve(sessionId),
      () => other.sessions.replays.retrieve(sessionId),
      () => other.sessions.replays.retrievePage(sessionId, pageIds[0]),
      () => other.sessions.recording.downloads.list(sessionId),
    ]) {
      await assert.rejects(call(), (err: { status?: number }) => err.status === 404);
    }
    for (const path of [`/replays/${pageIds[0]}/segment-000.ts`, `/recording/downloads/${pageIds[0]}`]) {
      assert.equal((await svc.request('GET', `/v1/sessions/${sessionId}${path}`, undefined, { 'x-svc-api-key': 'other-key' })).status, 404, path);
    }

    const unrecorded = await invokeAndWait(svc, fnId, { params: { url: pages.url, frames: 10 }, sessionCreateParams: { browserSettings: { recordSession: false } } });
    assert.equal(unrecorded.status, 'COMPLETED', JSON.stringify(unrecorded.cause));
    assert.deepEqual(await client.sessions.replays.retrieve(unrecorded.sessionId), { pageCount: 0, pages: [] });
    assert.deepEqual(await client.sessions.recording.retrieve(unrecorded.sessionId), []);
    assert.deepEqual(await client.sessions.recording.downloads.list(unrecorded.sessionId), { downloads: [] });
    assert.deepEqual(recordingFiles(svc, unrecorded.sessionId), []);
  });

  it('opens and records a page a link opens in a new tab (target=_blank, no opener)', async () => {
    svc = await startTestService();
    const build = await publish(svc, writeProject({ 'index.ts': POPUP_FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const invocation = await invokeAndWait(svc, build.builtFunctions![0].id, { params: { url: pages.url } });
    assert.equal(invocation.status, 'COMPLETED', JSON.stringify(invocation.cause));
    assert.deepEqual(invocation.results, { title: 'Page two', url: `${pages.url}/two` });
    const replays = await new Browserbase({ apiKey: svc.apiKey, baseURL: svc.url }).sessions.replays.retrieve(invocation.sessionId);
    assert.equal(replays.pageCount, 2, `the opener and the new tab are recorded: ${JSON.stringify(replays)}`);
  });

  it('cuts a recording at its size cap with a marker, and retention deletes it with the invocation', async () => {
    const capMb = 0.25;
    svc = await startTestService({
      BROWSERFN_RECORDING_MAX_MB: String(capMb),
      BROWSERFN_FINISHED_TTL_SECONDS: '1',
      BROWSERFN_RETENTION_DAYS: String(60 / 86_400),
      BROWSERFN_RETENTION_SWEEP_SECONDS: '1',
    });
    const build = await publish(svc, writeProject({ 'index.ts': FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    const invocation = await invokeAndWait(svc, build.builtFunctions![0].id, { params: { url: pages.url, frames: 300 } });
    assert.equal(invocation.status, 'COMPLETED', JSON.stringify(invocation.cause));
    const sessionId = invocation.sessionId;
    const client = new Browserbase({ apiKey: svc.apiKey, baseURL: svc.url });

    const replays = (await client.sessions.replays.retrieve(sessionId)) as Awaited<ReturnType<typeof client.sessions.replays.retrieve>> & { truncated?: { atMs: number; maxBytes: number } };
    assert.ok(replays.truncated, `the replay says it was cut: ${JSON.stringify(replays)}`);
    assert.equal(replays.truncated.maxBytes, Math.round(capMb * 1024 * 1024));
    const events = await client.sessions.recording.retrieve(sessionId);
    const marker = events.at(-1)!;
    assert.equal(marker.type, 5);
    assert.equal((marker.data as { tag?: string }).tag, 'browserfn.recording-truncated');
    assert.ok(events.every((event) => event.timestamp <= marker.timestamp), 'nothing after the cut');
    const stored = recordingFiles(svc, sessionId);
    assert.ok(stored.some((file) => file.name === 'manifest.json'), JSON.stringify(stored));
    const total = stored.reduce((sum, file) => sum + file.size, 0);
    assert.ok(total <= capMb * 1024 * 1024, `${total} bytes stored, cap ${capMb} MiB`);
    for (const page of replays.pages) assertVideo(await ffprobe(page.url, svc.apiKey), `the cut replay of page ${page.pageId}`);

    await waitFor('retention to delete the recording', async () => (recordingFiles(svc!, sessionId).length === 0 ? true : undefined), 180_000, 1000);
    assert.equal((await svc.request('GET', `/v1/sessions/${sessionId}/replays`)).status, 404);
    assert.equal((await svc.request('GET', `/v1/sessions/${sessionId}/recording`)).status, 404);
  });
});
