// Serves the web console (docs/console.md) at /ui: a page shell and the browser modules tsc
// compiled from src/console. No API key is needed for these files; every data call the console
// makes goes to /v1 with the key. Files are known by name from a listing made once at start, so a
// request can only ever name one of them (no path from the URL reaches the file system).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';
import type { RouteState } from './route.js';

/** Where tsc puts the console's modules: dist/src/console, beside this file's dist/src/api. */
const ASSET_DIR = fileURLToPath(new URL('../console/', import.meta.url));
const ASSET_NAME = /^[a-z0-9-]+\.js(\.map)?$/;
const CONTENT_TYPES = { js: 'text/javascript; charset=utf-8', map: 'application/json; charset=utf-8' } as const;

// Everything from this origin, nothing inline, nothing from elsewhere; media from Blob URLs (the
// MP4 is fetched with the key); frames of the live view come from the façade; nobody may frame us.
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "media-src 'self' blob:",
  "frame-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

interface Asset {
  body: Buffer;
  type: string;
}

/** Adds GET /ui, /ui/ (the shell, never cached) and /ui/assets/<hash>/<module> (cached for good: the hash names the whole set). */
export function mountConsole(router: Router<RouteState>): void {
  const assets = loadAssets(ASSET_DIR);
  const version = createHash('sha256');
  for (const [name, asset] of [...assets].sort(([a], [b]) => a.localeCompare(b))) version.update(name).update('\0').update(asset.body);
  const hash = version.digest('hex').slice(0, 16);
  const shell = Buffer.from(pageShell(`/ui/assets/${hash}/`));

  // The router ignores a trailing slash, so one route answers both; the shell's links are relative to /ui/.
  router.get('/ui', (ctx) => {
    ctx.set(SECURITY_HEADERS);
    if (ctx.path === '/ui') return ctx.redirect('/ui/');
    ctx.set('cache-control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = shell;
  });
  router.get('/ui/assets/:version/:name', (ctx) => {
    const asset = ctx.params.version === hash ? assets.get(ctx.params.name) : undefined;
    // Left unanswered, the request falls through to the façade's JSON 404.
    if (!asset) return;
    ctx.set(SECURITY_HEADERS);
    ctx.set('cache-control', 'public, max-age=31536000, immutable');
    ctx.type = asset.type;
    ctx.body = asset.body;
  });
}

function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(dir)) return assets;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile() || !ASSET_NAME.test(entry.name)) continue;
    const type = entry.name.endsWith('.map') ? CONTENT_TYPES.map : CONTENT_TYPES.js;
    assets.set(entry.name, { body: readFileSync(join(dir, entry.name)), type });
  }
  return assets;
}

function pageShell(base: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>browserfn console</title>
<link rel="icon" href="data:,">
<script type="module" src="${base}main.js"></script>
</head>
<body>
<noscript>The browserfn console needs JavaScript.</noscript>
</body>
</html>
`;
}
