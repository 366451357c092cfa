// A pool member's code loader posts a JSON body to the runtime API with each of Node's HTTP
// clients before it says it is ready, so that the SDK's `next` and its result (a body read, a body
// sent) run client code Node has already compiled; a cold pod's loader leaves the runtime API
// alone. Run as the agent runs the loader (support/code-loader-run.ts), against a fake runtime API
// that notes what it is asked.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { LoaderInstruction } from '../../src/runtime/sandbox/channel.js';
import { runCodeLoader, useFakeBrowsers } from './support/code-loader-run.js';

interface RuntimeApiRequest {
  method: string;
  path: string;
  body: string;
  contentType?: string;
  userAgent?: string;
}

describe('code loader: a pool member warms up its HTTP clients with a body each way', function () {
  this.timeout(60_000);
  const fakes = useFakeBrowsers('browserfn-http-warm-up-');
  let runtimeApi: Server;
  let requests: RuntimeApiRequest[] = [];
  before(async () => {
    runtimeApi = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const { method = '', url = '', headers } = request;
        requests.push({ method, path: url, body: Buffer.concat(chunks).toString('utf8'), contentType: headers['content-type'], userAgent: headers['user-agent'] });
        const text = JSON.stringify({ errorMessage: `no route ${method} ${url}`, errorType: 'NotFound' });
        response.writeHead(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        response.end(text);
      });
    });
    runtimeApi.listen(0, '127.0.0.1');
    await once(runtimeApi, 'listening');
  });
  after(async () => {
    runtimeApi.closeAllConnections();
    await new Promise((resolve) => runtimeApi.close(resolve));
  });
  beforeEach(() => (requests = []));

  /** The runtime API's requests by the time the loader said it was ready. */
  async function requestsUntilReady(preload: string[] | undefined): Promise<RuntimeApiRequest[]> {
    let untilReady: RuntimeApiRequest[] | undefined;
    const instructions = (codeDir: string): LoaderInstruction[] => [{ browser: fakes.browser.wsEndpoint }, preload ? { bundle: join(codeDir, 'main.mjs'), ahead: true } : { bundle: join(codeDir, 'main.mjs') }];
    await runCodeLoader({
      podDir: fakes.nextPodDir(),
      bundle: 'console.log(JSON.stringify({ loaded: true }));\n',
      instructions,
      preload,
      tellEarly: preload === undefined,
      watched: fakes.browser,
      onReady: () => (untilReady = [...requests]),
      env: { AWS_LAMBDA_RUNTIME_API: `127.0.0.1:${(runtimeApi.address() as AddressInfo).port}` },
    });
    assert.ok(untilReady, 'the loader said it was ready');
    return untilReady;
  }

  it('a pool member posts a JSON body with http and with fetch before it is ready', async () => {
    const asked = await requestsUntilReady([]);
    assert.equal(asked.length, 2, JSON.stringify(asked));
    for (const request of asked) {
      assert.deepEqual([request.method, request.path, request.contentType, JSON.parse(request.body)], ['POST', '/warm-up', 'application/json', { warmUp: true }]);
    }
    // fetch names itself; Node's http client sends no user-agent.
    assert.deepEqual(asked.map((request) => request.userAgent ?? 'http').sort(), ['http', 'node']);
  });

  it("a cold pod's loader asks the runtime API nothing: its start shares the CPU with its browser's", async () => {
    assert.deepEqual(await requestsUntilReady(undefined), []);
    assert.deepEqual(requests, []);
  });
});
