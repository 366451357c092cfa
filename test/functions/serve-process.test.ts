// `browserfn serve` as a real process: flags, the API key generated once and printed, a clean
// stop on SIGTERM that leaves no Chromium or user process behind, even mid-invocation, and runs the
// invocation it stopped again once it starts again.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeProject } from '../support/projects.js';
import { startHoldServer } from '../support/hold-server.js';
import { processesUnder } from '../support/processes.js';
import { waitFor } from '../support/service.js';
import { packProject } from '../../src/cli/pack.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

interface Served {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Serve processes still running: a failed test's are killed after it, so the next can use the data dir. */
const running = new Set<ChildProcess>();

async function serve(dataDir: string, env: Record<string, string> = {}): Promise<Served> {
  const cleanEnv = { ...process.env };
  delete cleanEnv.BROWSERFN_API_KEY;
  delete cleanEnv.BROWSERFN_API_KEYS;
  // Its startup output then always ends with the metrics line, which the wait below looks for.
  delete cleanEnv.BROWSERFN_METRICS_TOKEN;
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
    // Host network for the sandboxed pods: the hold server listens on 127.0.0.1 (see test/support/service.ts).
    env: { ...cleanEnv, BROWSERFN_LOG_LEVEL: 'warn', BROWSERFN_SANDBOX_NETWORK: 'host', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  // Its last startup line, not the first: the lines come in separate writes, which a read can fall between.
  const url = await waitFor('serve to print its address and the rest of its startup lines', async () => (/^Prometheus metrics: /m.test(out) ? /listening on (http:\/\/\S+)/.exec(out)?.[1] : undefined), 30_000, 50);
  return { child, url, output: () => out, exited };
}

describe('browserfn serve (process)', function () {
  this.timeout(180_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-serve-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  afterEach(async () => {
    await Promise.all([...running].map((child) => new Promise((resolve) => child.once('exit', resolve).kill('SIGKILL'))));
  });

  it('generates the API key once, prints it, and keeps it across restarts', async () => {
    const first = await serve(dataDir);
    const key = /API key \(generated once[^)]*\): (\S+)/.exec(first.output())?.[1];
    assert.ok(key, first.output());
    assert.equal(readFileSync(join(dataDir, 'api-key'), 'utf8').trim(), key);
    const ok = await fetch(`${first.url}/v1/functions`, { headers: { 'x-svc-api-key': key } });
    assert.equal(ok.status, 200);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);

    const second = await serve(dataDir);
    assert.doesNotMatch(second.output(), /generated once/, 'the key is printed only when it is made');
    const again = await fetch(`${second.url}/v1/functions`, { headers: { 'x-svc-api-key': key } });
    assert.equal(again.status, 200);
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });

  it('stops cleanly on SIGTERM in the middle of an invocation: no orphaned Chromium or user process', async () => {
    const served = await serve(dataDir, { BROWSERFN_API_KEY: 'k' });
    const hold = await startHoldServer();
    try {
      const packed = await packProject(join(writeProject({ 'index.ts': `import { defineFn } from 'browserfn';\ndefineFn('hold', async (_c, p: { url: string }) => (await fetch(p.url)).text());` }), 'index.ts'));
      const form = new FormData();
      form.append('metadata', JSON.stringify({ entrypoint: packed.entrypoint }));
      form.append('archive', new Blob([new Uint8Array(packed.archive)]), 'archive.tar.gz');
      const headers = { 'x-svc-api-key': 'k' };
      const build = (await (await fetch(`${served.url}/v1/functions/builds`, { method: 'POST', body: form, headers })).json()) as { id: string };
      const done = await waitFor('build', async () => {
        const b = (await (await fetch(`${served.url}/v1/functions/builds/${build.id}`, { headers })).json()) as { status: string; builtFunctions?: { id: string }[] };
        return b.status === 'COMPLETED' || b.status === 'FAILED' ? b : undefined;
      }, 120_000, 200);
      assert.equal(done.status, 'COMPLETED');
      const invoked = await fetch(`${served.url}/v1/functions/${done.builtFunctions![0].id}/invoke`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ params: { url: hold.url } }),
      });
      const { id } = (await invoked.json()) as { id: string };
      await hold.arrived(1);
      assert.ok(processesUnder(join(dataDir, 'pods')).length > 0, 'the invocation runs Chromium and the handler');
      served.child.kill('SIGTERM');
      assert.equal(await served.exited, 0, served.output());
      assert.deepEqual(processesUnder(join(dataDir, 'pods')), [], 'nothing of the pod outlives serve');

      // Its stopped pod reported nothing: started again, serve runs the invocation once more.
      hold.release();
      const restarted = await serve(dataDir, { BROWSERFN_API_KEY: 'k' });
      try {
        const ended = await waitFor('the invocation run again to end', async () => {
          const inv = (await (await fetch(`${restarted.url}/v1/functions/invocations/${id}`, { headers })).json()) as { status: string; results?: unknown; cause?: unknown };
          return inv.status === 'COMPLETED' || inv.status === 'FAILED' ? inv : undefined;
        }, 120_000, 200);
        assert.deepEqual([ended.status, ended.results, ended.cause], ['COMPLETED', 'released', undefined]);
        assert.equal(hold.seen(), 2, 'the handler ran twice: once in the stopped pod, once after');
      } finally {
        restarted.child.kill('SIGTERM');
        await restarted.exited;
      }
    } finally {
      hold.release();
      await hold.close();
    }
  });
});
