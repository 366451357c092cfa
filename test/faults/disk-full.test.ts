// The data dir's disk fills up under `serve`'s store: writes are refused with a clear error, reads
// keep answering, nothing stored before is damaged, and once space is back everything works again,
// also after a restart. Needs a small filesystem of its own: a tmpfs, which only root may mount.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/config/logger.js';
import { loadSettings } from '../../src/config/settings.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { tarGz } from '../build/project-archive.js';

const canMount = process.getuid?.() === 0;

describe('faults: the data dir runs out of space (embedded store)', function () {
  this.timeout(120_000);
  let mountPoint: string;
  let service: RunningService | undefined;
  const apiKey = 'disk-full-key';

  before(function () {
    if (!canMount) {
      console.warn('SKIPPED: the disk-full test mounts a small tmpfs, which needs root; this run is not root');
      this.skip();
    }
    mountPoint = mkdtempSync(join(tmpdir(), 'browserfn-disk-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mountPoint]);
  });
  after(async () => {
    await service?.stop();
    if (mountPoint && canMount) {
      execFileSync('umount', [mountPoint]);
      rmdirSync(mountPoint);
    }
  });

  const start = async () => {
    const settings = loadSettings({ dataDir: join(mountPoint, 'data'), port: 0, host: '127.0.0.1', env: { BROWSERFN_API_KEYS: `${apiKey}:default` } });
    service = await startService(settings, { backend: 'embedded', api: true, controllers: false, nodeAgent: false, nodeName: 'none', image: 'browserfn:test' }, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'));
  };
  const upload = async (entrypoint: string) => {
    const form = new FormData();
    form.append('metadata', JSON.stringify({ entrypoint }));
    form.append('archive', new Blob([new Uint8Array(tarGz([{ path: entrypoint, content: randomBytes(150_000).toString('base64') }]))], { type: 'application/gzip' }), 'archive.tar.gz');
    const response = await fetch(`${service!.url}/v1/functions/builds`, { method: 'POST', headers: { 'x-svc-api-key': apiKey }, body: form });
    return { status: response.status, body: (await response.json()) as any };
  };
  const entrypoints = async () => {
    const response = await fetch(`${service!.url}/v1/functions/builds?limit=100`, { headers: { 'x-svc-api-key': apiKey } });
    assert.equal(response.status, 200);
    return ((await response.json()) as { data: { request: { entrypoint: string } }[] }).data.map((b) => b.request.entrypoint).sort();
  };

  it('refuses writes with 507 naming the full disk, keeps reads and earlier data, and recovers', async () => {
    await start();
    assert.equal((await upload('before.ts')).status, 201);

    const filler = join(mountPoint, 'filler');
    fillUp(filler);
    const refused = await upload('during.ts');
    assert.equal(refused.status, 507, JSON.stringify(refused.body));
    assert.match(refused.body.message, /No space left on the data dir.s disk; nothing of this change was stored/);
    assert.deepEqual(await entrypoints(), ['before.ts']);

    rmSync(filler);
    assert.equal((await upload('after.ts')).status, 201);
    await service!.stop();
    service = undefined;
    await start();
    assert.deepEqual(await entrypoints(), ['after.ts', 'before.ts']);
  });
});

/** Writes zeros until the filesystem is full. */
function fillUp(path: string): void {
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(256 * 1024);
  try {
    for (;;) writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}

