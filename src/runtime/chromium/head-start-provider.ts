// A provider whose first browser is launched when it is made, before anyone asks for it. A cold
// pod's agent makes one before it loads the rest of its code (about 60 ms of module loading), so
// Chromium's start and the agent's overlap instead of following one another.
import type { BrowserProvider, BrowserRequest, LeasedBrowser } from './browser-provider.js';

interface FirstLaunch {
  request: BrowserRequest;
  abort: AbortController;
  launch: Promise<LeasedBrowser>;
}

export class HeadStartProvider implements BrowserProvider {
  #first: FirstLaunch | undefined;

  constructor(
    private readonly inner: BrowserProvider,
    request: Omit<BrowserRequest, 'signal'>,
  ) {
    const abort = new AbortController();
    const launch = inner.acquire({ ...request, signal: abort.signal });
    launch.catch(() => undefined);
    this.#first = { request, abort, launch };
  }

  /** The first request for the browser launched ahead gets it (its signal then aborts that launch); any other a new one. */
  acquire(request: BrowserRequest): Promise<LeasedBrowser> {
    const first = this.#first;
    this.#first = undefined;
    if (first && sameLaunch(first.request, request)) {
      if (request.signal?.aborted) first.abort.abort();
      else request.signal?.addEventListener('abort', () => first.abort.abort(), { once: true });
      return first.launch;
    }
    if (first) this.discard(first);
    return this.inner.acquire(request);
  }

  private discard(first: FirstLaunch): void {
    first.abort.abort();
    void first.launch.then((leased) => leased.release(), () => undefined);
  }
}

function sameLaunch(a: BrowserRequest, b: BrowserRequest): boolean {
  return a.workDir === b.workDir && a.viewport?.width === b.viewport?.width && a.viewport?.height === b.viewport?.height;
}
