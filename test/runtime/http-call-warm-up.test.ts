// A pool member's agent makes its kind of HTTP calls once before it is ready, so that the calls of
// its invocation (the assignment's answer read, the report posted) run code Node has already
// compiled. Each run is a process of its own, with the V8 flag a member's agent runs with, that
// reports how much bytecode V8 made for one GET answered with a JSON body and one POST of a JSON body.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const WARM_UP_MODULE = fileURLToPath(new URL('../../src/runtime/pod-agent/http-call-warm-up.js', import.meta.url));
const HTTP_CALL_MODULE = fileURLToPath(new URL('../../src/runtime/agent-common/http-call.js', import.meta.url));

const CALLS = `
import { getHeapCodeStatistics } from 'node:v8';
const { warmUpHttpCalls } = await import(${JSON.stringify(WARM_UP_MODULE)});
const { httpCall, readBody } = await import(${JSON.stringify(HTTP_CALL_MODULE)});
const [url, warm] = process.argv.slice(1);
if (warm === 'warm') await warmUpHttpCalls();
const before = getHeapCodeStatistics().bytecode_and_metadata_size;
const got = await httpCall(url, { method: 'GET', headers: { authorization: 'Bearer pod' }, timeoutMs: 10000 });
const assignment = JSON.parse((await readBody(got)).toString('utf8'));
const posted = await httpCall(url, { method: 'POST', headers: { authorization: 'Bearer pod', 'content-type': 'application/json' }, body: JSON.stringify({ phase: 'COMPLETED' }), timeoutMs: 10000 });
const answer = JSON.parse((await readBody(posted)).toString('utf8'));
console.log(JSON.stringify({ compiled: getHeapCodeStatistics().bytecode_and_metadata_size - before, assignment, answer }));
`;

describe('pod agent: a pool member warms up its HTTP calls', function () {
  this.timeout(60_000);
  let server: Server;
  let url: string;
  before(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = JSON.stringify({ method: request.method, receivedBytes: Buffer.concat(chunks).length });
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        response.end(text);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/internal/v1/pods/default/member/assignment`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function bytecodeOfCalls(warm: boolean): Promise<number> {
    const { stdout } = await run(process.execPath, ['--no-lazy', '--input-type=module', '--eval', CALLS, url, warm ? 'warm' : 'cold']);
    const printed = JSON.parse(stdout) as { compiled: number; assignment: { method: string }; answer: { method: string; receivedBytes: number } };
    assert.deepEqual([printed.assignment.method, printed.answer.method, printed.answer.receivedBytes], ['GET', 'POST', 21]);
    return printed.compiled;
  }

  it('after the warm-up, the calls compile almost nothing; without it, they compile Node\'s HTTP body handling', async () => {
    const cold = await bytecodeOfCalls(false);
    const warm = await bytecodeOfCalls(true);
    assert.ok(cold > 5_000, `the calls compiled ${cold} bytes of bytecode without a warm-up`);
    assert.ok(warm * 5 < cold, `the calls compiled ${warm} bytes after the warm-up, against ${cold} without`);
  });

  it('leaves nothing open behind it (the process ends by itself)', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '--eval', `const { warmUpHttpCalls } = await import(${JSON.stringify(WARM_UP_MODULE)}); await warmUpHttpCalls(); console.log('warmed');`], { timeout: 20_000 });
    assert.equal(stdout.trim(), 'warmed');
  });
});
