// Which Chromium build a session runs, told by its executable's name. Debian's
// `chromium-headless-shell` (Chrome for Testing's `chrome-headless-shell`) is Chromium built
// without the browser's windows and UI layer: in Chromium 156 it evaluates in its first page at
// about 180 ms from launch with 220 ms of CPU, where the full browser takes 400 ms and 580 ms
// (docs/pools-measurements.md). The full build's pages look more like a desktop browser's
// (navigator.plugins, languages), which some sites check.
import { accessSync, constants } from 'node:fs';
import { basename } from 'node:path';

export type ChromiumBuild = 'headless-shell' | 'chromium';

export const chromiumBuildOf = (executablePath: string): ChromiumBuild =>
  /headless[-_]shell/.test(basename(executablePath)) ? 'headless-shell' : 'chromium';

/** Where Debian installs each build: the headless shell first, the full browser if it alone is there. */
const DEBIAN_CHROMIUM_PATHS = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium'];

/** The browser sessions run unless BROWSERFN_CHROMIUM_PATH names one. */
export function defaultChromiumPath(): string {
  return DEBIAN_CHROMIUM_PATHS.find(isExecutable) ?? '/usr/bin/chromium';
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
