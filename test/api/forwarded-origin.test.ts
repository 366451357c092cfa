// The absolute URLs routes return (live view, recordings) are made from the façade's origin: the
// one the request reached, or behind a TLS-terminating proxy (BROWSERFN_TRUST_PROXY) the one the
// proxy forwards; without that setting a client's X-Forwarded-* headers change nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/api/app.js';
import { facadeOrigin } from '../../src/api/facade-origin.js';
import type { ApiDeps } from '../../src/api/deps.js';
import { defineRoute } from '../../src/api/route.js';
import { createLogger } from '../../src/config/logger.js';
import { loadSettings } from '../../src/config/settings.js';

const originRoute = defineRoute({
  method: 'get',
  path: '/v1/test-origin',
  operationId: 'Test_origin',
  summary: 'The origin absolute URLs would use',
  tags: ['test'],
  responses: { 200: { description: 'The origin' } },
  async handle(ctx) {
    ctx.body = { origin: facadeOrigin(ctx) };
  },
});

describe('façade origin behind a proxy', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-origin-'));
  const servers: Server[] = [];
  after(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function originSeen(trustProxy: string): Promise<{ plain: string; forwarded: string; base: string }> {
    const settings = loadSettings({ dataDir, port: 0, host: '127.0.0.1', env: { BROWSERFN_API_KEY: 'origin-key', BROWSERFN_TRUST_PROXY: trustProxy } });
    const deps = { settings, log: createLogger('silent') } as ApiDeps;
    const server = createServer(createApp(deps, { routes: [originRoute] }).callback());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ask = async (headers: Record<string, string>) => ((await (await fetch(`${base}/v1/test-origin`, { headers: { 'x-svc-api-key': 'origin-key', ...headers } })).json()) as { origin: string }).origin;
    return { base, plain: await ask({}), forwarded: await ask({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'browserfn.example.com' }) };
  }

  it('follows X-Forwarded-Proto and -Host only with BROWSERFN_TRUST_PROXY', async () => {
    const direct = await originSeen('0');
    assert.equal(direct.plain, direct.base);
    assert.equal(direct.forwarded, direct.base, 'a client cannot choose the origin of the URLs it is given');
    const proxied = await originSeen('1');
    assert.equal(proxied.plain, proxied.base);
    assert.equal(proxied.forwarded, 'https://browserfn.example.com');
  });
});
