// A pool member's agent serves one invocation, so its calls on the claimed path (the assignment's
// answer read, the report posted) would each be the process's first of its kind, and Node runs its
// code for reading and sending HTTP bodies for the first time there: about 1 ms of a warm
// invocation for the assignment's answer alone (2-core machine). The member makes such calls once,
// through the same client, against a loopback server of its own before it says it is ready.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpCall, readBody } from '../agent-common/http-call.js';

const WARM_UP_TIMEOUT_MS = 5_000;

/** A GET answered with a JSON body, then a POST of a JSON body, as the agent's control-plane client makes them. */
export async function warmUpHttpCalls(): Promise<void> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = JSON.stringify({ receivedBytes: Buffer.concat(chunks).length });
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      response.end(text);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    for (const body of [undefined, JSON.stringify({ warmUp: true })]) {
      const headers = { authorization: 'Bearer warm-up', ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
      const answer = await httpCall(url, { method: body === undefined ? 'GET' : 'POST', headers, body, timeoutMs: WARM_UP_TIMEOUT_MS });
      JSON.parse((await readBody(answer)).toString('utf8'));
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
