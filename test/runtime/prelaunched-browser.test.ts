import assert from 'node:assert/strict';
import type { BrowserProvider, BrowserRequest, LeasedBrowser } from '../../src/runtime/chromium/browser-provider.js';
import { PrelaunchedBrowser } from '../../src/runtime/chromium/prelaunched-browser.js';

/** Records each launch it is asked for; each launch ends when its signal aborts or `finish` is called. */
class RecordingProvider implements BrowserProvider {
  readonly launches: { request: BrowserRequest; finish: () => void; aborted: boolean }[] = [];

  acquire(request: BrowserRequest): Promise<LeasedBrowser> {
    return new Promise((resolve, reject) => {
      const launch = { request, aborted: false, finish: () => resolve({ wsEndpoint: `ws://127.0.0.1/${this.launches.length}`, release: async () => undefined }) };
      this.launches.push(launch);
      request.signal?.addEventListener('abort', () => {
        launch.aborted = true;
        reject(new Error('launch aborted'));
      });
    });
  }
}

describe('a browser launched before it is asked for', () => {
  const request = { workDir: '/pod/browser', viewport: { width: 800, height: 600 } };

  it('is launched at once and leased by the first acquire; later ones launch afresh', async () => {
    const provider = new RecordingProvider();
    const prelaunched = new PrelaunchedBrowser(provider, request);
    assert.equal(provider.launches.length, 1, 'launched before any acquire');
    assert.equal(provider.launches[0].request.workDir, request.workDir);
    const first = prelaunched.acquire({ ...request, signal: new AbortController().signal });
    provider.launches[0].finish();
    assert.equal((await first).wsEndpoint, 'ws://127.0.0.1/1');
    const second = prelaunched.acquire(request);
    assert.equal(provider.launches.length, 2, 'the second acquire launches');
    provider.launches[1].finish();
    assert.equal((await second).wsEndpoint, 'ws://127.0.0.1/2');
  });

  it("gives up the launch when the first acquire's signal aborts, also one aborted before it asked", async () => {
    const provider = new RecordingProvider();
    const abort = new AbortController();
    const leased = new PrelaunchedBrowser(provider, request).acquire({ ...request, signal: abort.signal });
    abort.abort();
    await assert.rejects(leased, /launch aborted/);
    assert.equal(provider.launches[0].aborted, true);

    const late = new RecordingProvider();
    await assert.rejects(new PrelaunchedBrowser(late, request).acquire({ ...request, signal: AbortSignal.abort() }), /launch aborted/);
    assert.equal(late.launches[0].aborted, true);
  });

  it('hands a failed launch to the first acquire, and nothing fails before it is asked for', async () => {
    const failing: BrowserProvider = { acquire: () => Promise.reject(new Error('no chromium here')) };
    const prelaunched = new PrelaunchedBrowser(failing, request);
    await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(prelaunched.acquire(request), /no chromium here/);
  });
});
