// Launches a fresh headless Chromium per request, CDP on an ephemeral loopback port.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { exitOf, killProcessGroup, signalProcessGroup, trackProcessGroup, describeExit } from '../sandbox/process-group.js';
import type { BrowserProvider, BrowserRequest, LeasedBrowser } from './browser-provider.js';
import { ChromiumStderr } from './chromium-stderr.js';
import { chromiumBuildOf } from '../../config/chromium-build.js';

export interface LocalChromiumOptions {
  executablePath: string;
  /** How long Chromium may take to print its DevTools endpoint. */
  launchTimeoutMs?: number;
  /** Chromium's own sandbox: only where user namespaces work (inside the node agent's pod sandbox). */
  sandbox?: boolean;
}

/**
 * What of a full headless Chromium's window is not its page: the tab strip and toolbar it lays out
 * though it draws none (87 px in Chromium 156; local-chromium.test.ts checks the pages get the asked
 * size). The headless shell's windows are their pages.
 */
const HEADLESS_WINDOW_FRAME_HEIGHT = 87;

/**
 * Chromium's flags; `port` 0 picks a free port (a local launch), a fixed one serves a pod's sidecar.
 * `sandbox` keeps Chromium's own sandbox, which needs user namespaces (off: --no-sandbox);
 * `proxyServer` is the pod's session proxy every request goes through; `executablePath` is the
 * Chromium that will run them, whose build (chromium-build.ts) the window flags follow (unset: the full browser).
 */
export function chromiumArguments(
  userDataDir: string,
  viewport?: BrowserRequest['viewport'],
  port: number | string = 0,
  options: { sandbox?: boolean; proxyServer?: string; executablePath?: string } = {},
): string[] {
  const args = [
    '--headless',
    ...(options.sandbox ? [] : ['--no-sandbox']),
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    '--mute-audio',
    // No infobar: without Chromium's sandbox the first window shows one ("unsupported command-line
    // flag"), 56 px off its first page's viewport that no other page lacks. ChromeDriver sets it too.
    '--test-type',
    // Headless still builds the omnibox popup's WebUI in a renderer of its own: about 1.4 s of CPU
    // in the second after start (Chromium 156), competing with the first invocation, for a window
    // nobody sees. No page can tell. Names a Chromium does not know are ignored.
    '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,PreloadTopChromeWebUI',
    '--remote-debugging-address=127.0.0.1',
    `--remote-debugging-port=${port}`,
    `--user-data-dir=${userDataDir}`,
    ...(options.proxyServer ? [`--proxy-server=${options.proxyServer}`] : []),
  ];
  if (viewport?.width && viewport.height) {
    // The viewport is the page's size ("the visible area of a web page", as Browserbase has it), in
    // every window: each window is taller by the frame. A screen as large as the window, as a
    // maximized browser has: headless Chromium's own is 800x600 whatever the window, which pages
    // read (screen.width) and which no real browser shows. The headless shell's screen is its window.
    if (options.executablePath && chromiumBuildOf(options.executablePath) === 'headless-shell') {
      args.push(`--window-size=${viewport.width},${viewport.height}`);
    } else {
      const windowHeight = viewport.height + HEADLESS_WINDOW_FRAME_HEIGHT;
      args.push(`--window-size=${viewport.width},${windowHeight}`, `--screen-info={0,0 ${viewport.width}x${windowHeight}}`);
    }
  }
  // One blank page, so CDP clients that expect a default page (playwright's contexts()[0]) find one.
  args.push('about:blank');
  return args;
}

export class LocalChromiumProvider implements BrowserProvider {
  constructor(private readonly options: LocalChromiumOptions) {}

  async acquire(request: BrowserRequest): Promise<LeasedBrowser> {
    const userDataDir = join(request.workDir, 'profile');
    mkdirSync(userDataDir, { recursive: true });
    const args = chromiumArguments(userDataDir, request.viewport, 0, { sandbox: this.options.sandbox, proxyServer: request.proxyServer, executablePath: this.options.executablePath });
    const child = spawn(this.options.executablePath, args, {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      // Nothing of the agent's environment (it holds the pod token) reaches the browser.
      env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: request.workDir, TZ: process.env.TZ ?? 'UTC' },
    });
    if (child.pid !== undefined) trackProcessGroup(child.pid);
    const release = () => killProcessGroup(child);

    try {
      const wsEndpoint = await new Promise<string>((resolve, reject) => {
        const stderr = new ChromiumStderr();
        // Its timer cleared too: an aborted launch must not keep the agent's process alive for the launch timeout.
        const fail = (reason: string) => {
          clearTimeout(timer);
          request.signal?.removeEventListener('abort', onAbort);
          reject(new Error(`Chromium (${this.options.executablePath}) ${reason}; stderr: ${stderr.tail()}`));
        };
        const timer = setTimeout(() => fail(`printed no DevTools endpoint within ${this.launchTimeoutMs()} ms`), this.launchTimeoutMs());
        const onAbort = () => fail('launch aborted');
        request.signal?.addEventListener('abort', onAbort, { once: true });
        child.once('error', (error) => fail(`could not start: ${error.message}`));
        void exitOf(child).then((status) => fail(describeExit(status)));
        child.stderr?.setEncoding('utf8');
        // Keep reading stderr for the browser's whole life: a full pipe would block Chromium.
        child.stderr?.on('data', (chunk: string) => {
          const endpoint = stderr.push(chunk);
          if (endpoint) {
            clearTimeout(timer);
            request.signal?.removeEventListener('abort', onAbort);
            resolve(endpoint);
          }
        });
      });
      const freeze = () => {
        if (child.pid !== undefined) signalProcessGroup(child.pid, 'SIGSTOP');
      };
      return { wsEndpoint, pid: child.pid, freeze, release, exited: exitOf(child).then(describeExit) };
    } catch (error) {
      await release();
      throw error;
    }
  }

  private launchTimeoutMs(): number {
    return this.options.launchTimeoutMs ?? 30_000;
  }
}
