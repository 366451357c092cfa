// A browser that runs as its own container next to the pod agent (Kubernetes browser pods): it
// listens for CDP on a fixed loopback port of the pod; the lease ends by closing it over CDP.
// Asked with Node's http client, like the control plane (agent-common/http-call.ts says why).
import CDP from 'chrome-remote-interface';
import { httpCall, readBody } from '../agent-common/http-call.js';
import type { BrowserProvider, BrowserRequest, LeasedBrowser } from './browser-provider.js';

export interface SidecarChromiumOptions {
  /** The CDP port the sidecar listens on, on 127.0.0.1 (the pod's own loopback). */
  port: number;
  /** How long the sidecar may take to answer. */
  startTimeoutMs?: number;
}

const POLL_MS = 25;
/** How often a leased sidecar is checked, and how many missed answers in a row mean it is gone. */
const WATCH_MS = 1000;
const WATCH_MISSES = 2;

export class SidecarChromiumProvider implements BrowserProvider {
  constructor(private readonly options: SidecarChromiumOptions) {}

  async acquire(request: BrowserRequest): Promise<LeasedBrowser> {
    const deadline = Date.now() + (this.options.startTimeoutMs ?? 30_000);
    const versionUrl = `http://127.0.0.1:${this.options.port}/json/version`;
    for (;;) {
      if (request.signal?.aborted) throw new Error('launch aborted');
      try {
        const answer = await httpCall(versionUrl, { method: 'GET', timeoutMs: 2000 });
        const body = await readBody(answer);
        if (answer.statusCode === 200) {
          const { webSocketDebuggerUrl } = JSON.parse(body.toString('utf8')) as { webSocketDebuggerUrl?: string };
          if (webSocketDebuggerUrl) {
            const watch = watchSidecar(versionUrl);
            return {
              wsEndpoint: webSocketDebuggerUrl,
              exited: watch.gone,
              release: async () => {
                watch.stop();
                await closeBrowser(webSocketDebuggerUrl);
              },
            };
          }
        }
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`the Chromium sidecar did not answer on ${versionUrl} in time`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}

/** Browser.close ends the sidecar's process, and with it the container. */
async function closeBrowser(wsEndpoint: string): Promise<void> {
  try {
    const client = await CDP({ target: wsEndpoint, protocol: { domains: [] } as unknown as CDP.Protocol });
    await client.send('Browser.close' as never).catch(() => undefined);
    await client.close().catch(() => undefined);
  } catch {
    // already gone
  }
}

/** Another container's process cannot be waited for: it is gone once it stops answering. */
function watchSidecar(versionUrl: string): { gone: Promise<string>; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const gone = new Promise<string>((resolve) => {
    let misses = 0;
    const check = async () => {
      if (stopped) return;
      const answered = await answersOk(versionUrl, WATCH_MS);
      misses = answered ? 0 : misses + 1;
      if (stopped) return;
      if (misses >= WATCH_MISSES) resolve('stopped answering on its CDP port');
      else timer = setTimeout(() => void check(), WATCH_MS);
    };
    timer = setTimeout(() => void check(), WATCH_MS);
  });
  return {
    gone,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

async function answersOk(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const answer = await httpCall(url, { method: 'GET', timeoutMs });
    await readBody(answer);
    return answer.statusCode === 200;
  } catch {
    return false;
  }
}
