// `browserfn secrets …` against the real façade: set reads stdin and seals on the client.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { KEYS, PROJECTS, secretValueFor, startHarness, type Harness } from './harness.js';
import { resolveFunctionSecrets } from '../../src/secrets/resolve.js';

const CLI = fileURLToPath(new URL('./fixtures/secrets-cli.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

describe('browserfn secrets CLI', function () {
  this.timeout(60_000);
  let h: Harness;

  before(async () => {
    h = await startHarness();
  });
  after(async () => h?.stop());

  it('sets (create, then update in place), lists, attaches, detaches and deletes; values never printed', async () => {
    const env = { BROWSERFN_API_KEY: KEYS.a };
    const fn = await h.createFunction('cli-reader');
    const first = secretValueFor('cli-first');
    const second = secretValueFor('cli-second');

    const created = await runCli(['secrets', 'set', 'CLI_TOKEN', '--api-url', h.url], { stdin: first + '\n', env });
    assert.equal(created.code, 0, created.stderr);
    const secret = JSON.parse(created.stdout) as { id: string; secretKey: string };
    assert.equal(secret.secretKey, 'CLI_TOKEN');
    assert.match(created.stderr, /Created secret CLI_TOKEN/);

    // BROWSERFN_API_URL stands in for --api-url.
    const updated = await runCli(['secrets', 'set', 'CLI_TOKEN'], { stdin: second, env: { ...env, BROWSERFN_API_URL: h.url } });
    assert.equal(updated.code, 0, updated.stderr);
    assert.deepEqual(JSON.parse(updated.stdout), secret);
    assert.match(updated.stderr, /Updated secret CLI_TOKEN/);

    const attached = await runCli(['secrets', 'attach', fn.metadata.uid!, secret.id, '--api-url', h.url], { env });
    assert.equal(attached.code, 0, attached.stderr);
    assert.deepEqual(await resolveFunctionSecrets(h.cluster, PROJECTS.a, await h.getFunction(fn)), { CLI_TOKEN: second });

    const listed = await runCli(['secrets', 'list', '--api-url', h.url], { env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(listed.stdout.trim().split('\n'), [`${secret.id}\tCLI_TOKEN`]);
    const listedForFn = await runCli(['secrets', 'list', '--function', fn.metadata.uid!, '--api-url', h.url], { env });
    assert.deepEqual(listedForFn.stdout.trim().split('\n'), [`${secret.id}\tCLI_TOKEN`]);

    // The secret by its name, as `secrets set` took it.
    const detached = await runCli(['secrets', 'detach', fn.metadata.uid!, 'CLI_TOKEN', '--api-url', h.url], { env });
    assert.equal(detached.code, 0, detached.stderr);
    assert.deepEqual(await resolveFunctionSecrets(h.cluster, PROJECTS.a, await h.getFunction(fn)), {});
    assert.equal((await runCli(['secrets', 'delete', secret.id, '--api-url', h.url], { env })).code, 0);
    assert.equal((await h.request('GET', `/v1/secrets/${secret.id}`)).status, 404);

    for (const run of [created, updated, attached, listed, listedForFn]) {
      for (const value of [first, second]) assert.ok(!run.stdout.includes(value) && !run.stderr.includes(value));
    }
    assert.ok(!h.logLines.join('\n').includes(first) && !h.logLines.join('\n').includes(second));
  });

  it('sends the bound form: the server opens it only as this project and name', async () => {
    const value = secretValueFor('bound-cli');
    const run = await runCli(['secrets', 'set', 'BOUND_BY_CLI', '--api-url', h.url], { stdin: value, env: { BROWSERFN_API_KEY: KEYS.b } });
    assert.equal(run.code, 0, run.stderr);
    const fn = await h.createFunction('cli-bound-reader', PROJECTS.b);
    assert.equal((await h.request('POST', `/v1/functions/${fn.metadata.uid}/secrets`, { secretId: JSON.parse(run.stdout).id }, KEYS.b)).status, 204);
    assert.deepEqual(await resolveFunctionSecrets(h.cluster, PROJECTS.b, await h.getFunction(fn)), { BOUND_BY_CLI: value });
  });

  it('fails with a message saying what to fix', async () => {
    const noKey = await runCli(['secrets', 'list', '--api-url', h.url]);
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /Set BROWSERFN_API_KEY/);
    const empty = await runCli(['secrets', 'set', 'EMPTY', '--api-url', h.url], { stdin: '', env: { BROWSERFN_API_KEY: KEYS.a } });
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /No secret value on stdin/);
    const badName = await runCli(['secrets', 'set', '9-LIVES', '--api-url', h.url], { stdin: 'x', env: { BROWSERFN_API_KEY: KEYS.a } });
    assert.equal(badName.code, 1);
    assert.match(badName.stderr, /400: Invalid secretKey "9-LIVES": use 1 to 128 characters/);
    const missing = await runCli(['secrets', 'attach', '00000000-0000-4000-8000-000000000000', '00000000-0000-4000-8000-000000000001', '--api-url', h.url], { env: { BROWSERFN_API_KEY: KEYS.a } });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No Function with that ID or named "00000000-0000-4000-8000-000000000000" in this project/);
  });
});
