// Fits a finished recording to its size cap, which the control plane enforces file by file: the
// cap was watched while recording, but finishing the files adds a little. What goes first: MP4s
// (the playlists hold the same video), then the last segments of each playlist, whose text is cut
// to match and ended. Returns when the video is cut, so the manifest can say so.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CapturedPage } from './screencast-capture.js';

export interface FittedPage {
  page: CapturedPage;
  playlist: Buffer;
  segments: string[];
  mp4: boolean;
}

/** Room left for the manifest, written after everything else. */
const MANIFEST_RESERVE = 16 * 1024;

export function fitPages(pages: CapturedPage[], maxBytes: number, otherBytes: number): { pages: FittedPage[]; cutAtMs?: number } {
  let room = maxBytes - otherBytes - MANIFEST_RESERVE;
  let cutAtMs: number | undefined;
  const fitted: FittedPage[] = [];
  for (const page of pages) {
    const playlist = readFileSync(join(page.dir, 'index.m3u8'));
    room -= playlist.length;
    const durations = segmentDurations(playlist.toString('utf8'));
    const kept: string[] = [];
    let elapsedMs = 0;
    for (const [index, segment] of page.encoded.segments.entries()) {
      const size = statSync(join(page.dir, segment)).size;
      if (cutAtMs !== undefined || size > room) {
        cutAtMs ??= page.startTimeMs + elapsedMs;
        break;
      }
      room -= size;
      kept.push(segment);
      elapsedMs += (durations[index] ?? 0) * 1000;
    }
    if (kept.length === 0) continue;
    fitted.push({ page, playlist: kept.length === page.encoded.segments.length ? playlist : cutPlaylist(playlist.toString('utf8'), kept.length), segments: kept, mp4: false });
  }
  for (const entry of fitted) {
    if (!entry.page.encoded.mp4 || entry.segments.length < entry.page.encoded.segments.length) continue;
    const size = statSync(join(entry.page.dir, 'page.mp4')).size;
    if (size <= room) {
      room -= size;
      entry.mp4 = true;
    }
  }
  return cutAtMs === undefined ? { pages: fitted } : { pages: fitted, cutAtMs };
}

function segmentDurations(playlist: string): number[] {
  return [...playlist.matchAll(/^#EXTINF:([0-9.]+)/gm)].map((match) => Number(match[1]));
}

/** The playlist's first `count` segments, ended (#EXT-X-ENDLIST). */
function cutPlaylist(playlist: string, count: number): Buffer {
  const lines = playlist.split('\n');
  const out: string[] = [];
  let segments = 0;
  for (const line of lines) {
    if (line.startsWith('#EXT-X-ENDLIST')) break;
    out.push(line);
    if (line && !line.startsWith('#')) segments += 1;
    if (segments === count) break;
  }
  return Buffer.from(`${out.join('\n')}\n#EXT-X-ENDLIST\n`);
}
