// Which Chromium build a session runs, told by its executable's name (BROWSERFN_CHROMIUM_PATH).
// Debian's `chromium-headless-shell` (Chrome for Testing's `chrome-headless-shell`) is Chromium built
// without the desktop browser's windows and UI layer; its flags differ (local-chromium-provider.ts).
import { basename } from 'node:path';

export type ChromiumBuild = 'headless-shell' | 'chromium';

export const chromiumBuildOf = (executablePath: string): ChromiumBuild =>
  /headless[-_]shell/.test(basename(executablePath)) ? 'headless-shell' : 'chromium';
