// Parts of `browserfn dev`: the local secrets file (dotenv lines or a JSON object; errors never show a value) and the console echo.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLocalSecrets } from '../../src/server/dev/local-secrets.js';
import { consoleEcho, formatConsole, type ConsoleLine } from '../../src/server/dev/console-echo.js';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { devRequestHandler, type InvokeByName } from '../../src/server/dev/dev-http.js';

describe('browserfn dev: local secrets file', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'dev-secrets-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('reads dotenv lines: comments, export, quotes, a trailing comment after an unquoted value', () => {
    const secrets = readLocalSecrets(file('.env.browserfn', '# c\n\nexport A=1\nB = "two words # kept"\nC=\'single\'\nD=plain # note\nE="line\\nbreak"\nF=\n'));
    assert.deepEqual(Object.fromEntries(secrets), { A: '1', B: 'two words # kept', C: 'single', D: 'plain', E: 'line\nbreak', F: '' });
  });

  it('reads a JSON object of strings when the name ends in .json', () => {
    assert.deepEqual(Object.fromEntries(readLocalSecrets(file('s.json', '{"API_TOKEN": "v1", "OTHER": "v2"}'))), { API_TOKEN: 'v1', OTHER: 'v2' });
    assert.throws(() => readLocalSecrets(file('n.json', '{"A": 1}')), /the value of A must be a string/);
    assert.throws(() => readLocalSecrets(file('a.json', '["x"]')), /one JSON object/);
  });

  it('names the line of a malformed entry or a bad name, never the value', () => {
    const value = 'do-not-print-me';
    for (const [name, text, pattern] of [
      ['bad-line.env', `A=1\n${value}\n`, /:2: expected NAME=value/],
      ['bad-name.env', `bad-name!=${value}\n`, /secret name "bad-name!"/],
    ] as const) {
      assert.throws(
        () => readLocalSecrets(file(name, text)),
        (err: Error) => pattern.test(err.message) && !err.message.includes(value),
      );
    }
  });
});

describe('browserfn dev: console echo', () => {
  it('hands on the console records of pod output, lines split across chunks joined, other lines left out', () => {
    const lines: ConsoleLine[] = [];
    const echo = consoleEcho((line) => lines.push(line));
    const pod = { namespace: 'default', name: 'inv-1-a1' };
    const record = JSON.stringify({ level: 30, msg: 'console', console: { level: 'warn', message: 'careful', timestamp: 't' } });
    echo(pod, JSON.stringify({ level: 30, msg: 'browser ready' }) + '\n' + record.slice(0, 10));
    echo(pod, record.slice(10) + '\nnot json\n');
    assert.deepEqual(lines, [{ pod: 'inv-1-a1', level: 'warn', message: 'careful' }]);
    assert.equal(formatConsole(lines[0], 'greet'), '[greet warn] careful');
    assert.equal(formatConsole({ ...lines[0], level: 'info' }, 'greet'), '[greet] careful');
  });
});

describe('browserfn dev: who may call it', () => {
  let server: Server;
  let port: number;
  const invoked: string[] = [];
  const invoke: InvokeByName = async (name) => {
    invoked.push(name);
    return { invocation: { metadata: { name: 'i' }, spec: { sessionId: 's' }, status: { phase: 'COMPLETED', results: { ok: name } } } as never, stackTrace: [] };
  };
  before(async () => {
    server = createServer(devRequestHandler(invoke, () => undefined));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A raw request, so the Host and Origin headers are exactly what a browser or a rebinding page would send. */
  const call = (headers: Record<string, string>, method = 'POST') =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/v1/functions/f/invoke', method, agent: false, headers: { 'content-type': 'text/plain', ...headers } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end(method === 'POST' ? '{"params":{}}' : undefined);
    });

  it('answers local tools and loopback pages, allowing exactly their origin', async () => {
    const tool = await call({ host: `127.0.0.1:${port}` });
    assert.equal(tool.status, 200, tool.body);
    assert.equal(tool.headers['access-control-allow-origin'], undefined);
    const page = await call({ host: `localhost:${port}`, origin: 'http://localhost:5173' });
    assert.equal(page.status, 200, page.body);
    assert.equal(page.headers['access-control-allow-origin'], 'http://localhost:5173');
    assert.deepEqual(JSON.parse(page.body), { ok: 'f' });
  });

  it('refuses other sites and rebound host names with a 403 that says why, before invoking anything', async () => {
    invoked.length = 0;
    const site = await call({ host: `127.0.0.1:${port}`, origin: 'https://evil.example' });
    assert.equal(site.status, 403);
    assert.match(JSON.parse(site.body).message, /only pages served from a loopback address/);
    const preflight = await call({ host: `127.0.0.1:${port}`, origin: 'https://evil.example' }, 'OPTIONS');
    assert.equal(preflight.status, 403);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    const rebound = await call({ host: `evil.example:${port}` });
    assert.equal(rebound.status, 403);
    assert.match(JSON.parse(rebound.body).message, /only requests to a loopback address/);
    assert.deepEqual(invoked, []);
  });
});
