// The CLI as a user runs it: `browserfn publish <entry>` then `browserfn invoke <id>`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestService, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, timeout: 180_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('browserfn CLI: publish and invoke', function () {
  this.timeout(240_000);
  let svc: TestService;
  let env: Record<string, string>;

  before(async () => {
    svc = await startTestService();
    env = { BROWSERFN_API_KEY: svc.apiKey, BROWSERFN_API_URL: svc.url };
  });
  after(async () => svc?.stop());

  it('publishes Functions spread over files, prints each with its ID, and invokes one', async () => {
    const root = writeProject({
      'src/main.ts': `import './a.js';\nimport './nested/b.js';\n`,
      'src/a.ts': `import { defineFn } from 'browserfn';\ndefineFn('add', async (_ctx, p: { a: number; b: number }) => { console.log('adding'); return p.a + p.b; });`,
      'src/nested/b.ts': `import { defineFn } from 'browserfn';\ndefineFn('boom', async () => { throw new Error('kaput'); });`,
      'node_modules/ignored/index.js': 'this is never uploaded',
      '.env': 'SECRET=never-uploaded',
    });
    const published = await run(['publish', join(root, 'src/main.ts')], env);
    assert.equal(published.code, 0, published.stderr);
    assert.match(published.stdout, /Packed \d+ files/);
    assert.doesNotMatch(published.stdout, /node_modules/);
    const ids = Object.fromEntries([...published.stdout.matchAll(/^\s+(\S+)\s+id=([0-9a-f-]{36})/gm)].map((m) => [m[1], m[2]]));
    assert.deepEqual(Object.keys(ids).sort(), ['add', 'boom']);

    const ok = await run(['invoke', ids.add, '--params', '{"a":2,"b":40}'], env);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout), 42);
    assert.match(ok.stderr, /adding/);

    const failed = await run(['invoke', ids.boom], env);
    assert.notEqual(failed.code, 0);
    assert.match(failed.stderr, /WORKLOAD_ERROR: kaput/);

    // By name, as publish prints it and defineFn says it.
    const byName = await run(['invoke', 'add', '--params', '{"a":1,"b":2}'], env);
    assert.equal(byName.code, 0, byName.stderr);
    assert.equal(JSON.parse(byName.stdout), 3);
    const unknown = await run(['invoke', 'no-such-fn'], env);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /No Function named "no-such-fn" in this project/);
  });

  it('invokes a Function whose name is shaped as an ID by that name, and by its ID', async () => {
    const name = '123e4567-e89b-42d3-a456-426614174000';
    const root = writeProject({ 'index.ts': `import { defineFn } from 'browserfn';\ndefineFn(${JSON.stringify(name)}, async () => 'named as an ID');` });
    const published = await run(['publish', join(root, 'index.ts')], env);
    assert.equal(published.code, 0, published.stderr);
    const id = new RegExp(`^\\s+${name}\\s+id=([0-9a-f-]{36})`, 'm').exec(published.stdout)?.[1];
    assert.ok(id && id !== name, published.stdout);
    for (const ref of [name, id]) {
      const ok = await run(['invoke', ref], env);
      assert.equal(ok.code, 0, `${ref}: ${ok.stderr}`);
      assert.equal(JSON.parse(ok.stdout), 'named as an ID');
    }
    const unknown = await run(['invoke', '00000000-0000-4000-8000-000000000000'], env);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /No Function with that ID or named "00000000-0000-4000-8000-000000000000"/);
  });

  it('waits out a 429 as its Retry-After says, then goes on', async () => {
    let refusals = 2;
    const server = createServer((req, res) => {
      if (refusals-- > 0) res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"message":"slow down"}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [], nextCursor: null }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await run(['secrets', 'list'], { ...env, BROWSERFN_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      assert.equal(res.code, 0, res.stderr);
      assert.equal(refusals, -1, 'asked three times');
    } finally {
      server.close();
    }
  });

  it('exits non-zero with the cause when a build fails', async () => {
    const root = writeProject({ 'index.ts': 'export const nothing = 1;' });
    const res = await run(['publish', join(root, 'index.ts')], env);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /NO_MANIFESTS_FOUND/);
  });

  it('shows the artifact size and each build step\'s time, and the first lines of npm\'s error when the install fails', async () => {
    const ok = await run(['publish', join(writeProject({ 'index.ts': `import { defineFn } from 'browserfn';\ndefineFn('tiny', async () => 1);` }), 'index.ts')], env);
    assert.equal(ok.code, 0, ok.stderr);
    assert.doesNotMatch(ok.stderr, /Warning/);
    assert.match(ok.stdout, /^Artifact: [\d.]+ MiB tar\.gz \(\d+ files, [\d.]+ MiB unpacked\)$/m);
    assert.match(ok.stdout, /^Steps: extract [\d.]+ s, install [\d.]+ s, bundle [\d.]+ s, introspect [\d.]+ s, upload [\d.]+ s, store [\d.]+ s$/m);

    // package.json and package-lock.json out of sync: npm ci refuses before downloading anything.
    const root = writeProject({
      'index.ts': `import { defineFn } from 'browserfn';\ndefineFn('tiny', async () => 1);`,
      'package.json': JSON.stringify({ name: 'out-of-sync', version: '1.0.0', type: 'module', dependencies: { ms: '2.1.3' } }),
      'package-lock.json': JSON.stringify({ name: 'out-of-sync', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'out-of-sync', version: '1.0.0' } } }),
    });
    const failed = await run(['publish', join(root, 'index.ts')], env);
    assert.notEqual(failed.code, 0);
    assert.match(failed.stdout, /^Steps: extract [\d.]+ s, install [\d.]+ s \(failed\)/m);
    assert.match(failed.stderr, /^Build failed: DEPENDENCY_INSTALL_FAILED: npm ci exited with code 1\./m);
    assert.match(failed.stderr, /^ {2}\| npm error .*(in sync|Missing: ms)/m);
  });

  it("prints a completed build's warnings, such as the .npmrc keys it left out", async () => {
    const fixture = fileURLToPath(new URL('../../../test/fixtures/projects/real-commonjs/', import.meta.url));
    const root = writeProject({
      'index.ts': `import { defineFn } from 'browserfn';\nimport ms from 'ms';\ndefineFn('tiny', async () => ms(1000));`,
      'package.json': readFileSync(join(fixture, 'package.json'), 'utf8').replace('"commonjs"', '"module"'),
      'package-lock.json': readFileSync(join(fixture, 'package-lock.json'), 'utf8'),
      '.npmrc': 'fund=false\nscript-shell=/bin/sh\n',
    });
    const res = await run(['publish', join(root, 'index.ts')], env);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /^Warning: Left out of the project's \.npmrc: "fund" \(set by the build\), "script-shell" \(set by the build\)$/m);
  });

  it('says what to do without an API key', async () => {
    const res = await run(['invoke', '00000000-0000-4000-8000-000000000000'], { BROWSERFN_API_KEY: '', BROWSERFN_API_URL: svc.url });
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /Set BROWSERFN_API_KEY/);
  });
});
