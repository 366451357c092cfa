// A browser launched before anyone asks for it, so its start overlaps whatever the asker still
// has to load: the first acquire leases it (the request must be the one it was launched with),
// later ones launch as the wrapped provider does. Aborting that first acquire aborts the launch.
import type { BrowserProvider, BrowserRequest, LeasedBrowser } from './browser-provider.js';

export class PrelaunchedBrowser implements BrowserProvider {
  readonly #abort = new AbortController();
  #early: Promise<LeasedBrowser> | undefined;

  constructor(
    private readonly provider: BrowserProvider,
    request: Omit<BrowserRequest, 'signal'>,
  ) {
    this.#early = provider.acquire({ ...request, signal: this.#abort.signal });
    // Until it is asked for, a failed launch is nobody's concern; the asker gets the failure.
    this.#early.catch(() => undefined);
  }

  acquire(request: BrowserRequest): Promise<LeasedBrowser> {
    const early = this.#early;
    if (!early) return this.provider.acquire(request);
    this.#early = undefined;
    if (request.signal?.aborted) this.#abort.abort();
    else request.signal?.addEventListener('abort', () => this.#abort.abort(), { once: true });
    return early;
  }
}
