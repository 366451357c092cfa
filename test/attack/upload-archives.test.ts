// Hostile project archives are refused at upload: a 400 naming the entry and the rule, and no
// Build or archive left in the store; an upload broken off mid-body or over the size limit leaves no
// file open or behind.
// The façade runs as `browserfn api` does (no controllers, no pods), so what is checked is the upload alone.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { Header } from 'tar';
import { archiveProject, tarGz } from '../build/project-archive.js';
import { startApiOnly, type ApiOnlyService } from '../support/api-only.js';
import { waitFor } from '../support/service.js';
import { fixtureProject } from '../runtime/support/agent-process.js';

describe('attack: hostile archives at upload', function () {
  this.timeout(120_000);
  let api: ApiOnlyService;

  before(async () => {
    api = await startApiOnly();
  });
  after(async () => {
    await api?.stop();
  });

  async function upload(archive: Buffer, metadata = JSON.stringify({ entrypoint: 'index.ts' })): Promise<{ status: number; body: any }> {
    const form = new FormData();
    form.append('metadata', metadata);
    form.append('archive', new Blob([new Uint8Array(archive)], { type: 'application/gzip' }), 'archive.tar.gz');
    return api.request('POST', '/v1/functions/builds', form);
  }

  async function assertRefused(archive: Buffer, message: RegExp): Promise<void> {
    const before = await api.storedBuildObjects();
    const response = await upload(archive);
    assert.equal(response.status, 400, JSON.stringify(response.body));
    assert.equal(response.body.statusCode, 400);
    assert.match(response.body.message, message);
    assert.deepEqual(await api.storedBuildObjects(), before, 'nothing of a refused upload is stored');
  }

  const ok = { path: 'index.ts', content: 'export {};\n' };

  it('refuses entries that leave the project: "..", absolute paths, links out, links through links', async () => {
    await assertRefused(tarGz([ok, { path: '../escape.txt', content: 'x' }]), /Invalid project archive: "\.\.\/escape\.txt" contains "\.\."/);
    await assertRefused(tarGz([ok, { path: '/etc/cron.d/x', content: 'x' }]), /"\/etc\/cron\.d\/x" is an absolute path/);
    await assertRefused(tarGz([ok, { path: 'out', type: 'SymbolicLink', linkpath: '/etc' }]), /link "out" points to the absolute path "\/etc"/);
    await assertRefused(tarGz([ok, { path: 'up', type: 'SymbolicLink', linkpath: '../..' }]), /link "up" points outside the project/);
    await assertRefused(
      tarGz([ok, { path: 'lnk', type: 'SymbolicLink', linkpath: '.' }, { path: 'up4', type: 'SymbolicLink', linkpath: 'lnk/lnk/lnk/lnk/../../../..' }]),
      /link "up4" points outside the project/,
    );
    await assertRefused(tarGz([ok, { path: 'dir', type: 'SymbolicLink', linkpath: 'sub' }, { path: 'dir/file', content: 'x' }]), /written through the link "dir"/);
    await assertRefused(tarGz([ok, { path: 'hard', type: 'Link', linkpath: '../../etc/passwd' }]), /link "hard" points outside the project/);
  });

  it('refuses paths nested deeper than any project (64 folders, 1024 characters), whose every file call costs more', async () => {
    await assertRefused(tarGz([ok, { path: `${'a/'.repeat(2000)}f`, content: 'x' }]), /"a\/a\/a[a\/]*…" is 2001 folders deep and 4001 characters long; paths are limited to 64 folders and 1024 characters/);
    await assertRefused(tarGz([ok, { path: `${'x'.repeat(200)}/`.repeat(6) + 'f', content: 'x' }]), /is 7 folders deep and 1207 characters long/);
    const deepest = `${'a/'.repeat(63)}f`;
    const accepted = await upload(tarGz([ok, { path: deepest, content: 'x' }]));
    assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
  });

  it('refuses device files and FIFOs', async () => {
    await assertRefused(tarGz([ok, { path: 'null', type: 'CharacterDevice' }]), /"null" is a CharacterDevice entry/);
    await assertRefused(tarGz([ok, { path: 'pipe', type: 'FIFO' }]), /"pipe" is a FIFO entry/);
  });

  it('refuses what is not a tar.gz, a truncated one, and an empty one', async () => {
    const project = await archiveProject(fixtureProject('multi-file'));
    await assertRefused(project.subarray(0, Math.floor(project.length / 2)), /the archive cannot be read/);
    const notTar = Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from('garbage that is not gzip at all')]);
    await assertRefused(notTar, /the archive cannot be read/);
    await assertRefused(tarGz([]), /the archive cannot be read|the archive holds no files/);
  });

  it('stops a tar bomb at the entry limit and a gzip bomb at the extracted-size limit', async () => {
    const many = Array.from({ length: 20_001 }, (_, i) => ({ path: `f${i}`, content: '' }));
    await assertRefused(tarGz(many), /more than 20000 entries/);
    await assertRefused(await gzipBomb(300 * 1024 * 1024), /holds more than 268435456 bytes of files/);
  });

  it('refuses metadata that is not what the CLI sends, whatever its size', async () => {
    const archive = await archiveProject(fixtureProject('multi-file'));
    for (const [metadata, message] of [
      ['x'.repeat(200_000), /"metadata" form field is not valid JSON/],
      [JSON.stringify({ entrypoint: '../../etc/passwd' }), /must be a relative path inside the project/],
      [JSON.stringify({ entrypoint: 'a'.repeat(600) }), /must be a relative path inside the project/],
      [JSON.stringify({ entrypoint: 'index.ts', functionNames: [1] }), /functionNames must be an array of strings/],
    ] as const) {
      const before = await api.storedBuildObjects();
      const response = await upload(archive, metadata);
      assert.equal(response.status, 400, JSON.stringify(response.body));
      assert.match(response.body.message, message);
      assert.deepEqual(await api.storedBuildObjects(), before);
    }
  });

  /** Starts an upload on a raw socket whose archive part begins with `marker`, and waits until it is being spooled. */
  async function startRawUpload(service: ApiOnlyService, marker: string): Promise<{ socket: Socket; file: string }> {
    const socket = connect(Number(new URL(service.url).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      'POST /v1/functions/builds HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `x-svc-api-key: ${service.apiKey}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 10000000\r\n\r\n` +
        `--x\r\nContent-Disposition: form-data; name="archive"; filename="archive.tar.gz"\r\n\r\n${marker}`,
      'latin1',
    );
    const file = await waitFor('the part to be spooled', async () => openSpoolFiles().find((spool) => spool.content.startsWith(marker))?.path, 30_000, 20);
    return { socket, file };
  }

  it('keeps nothing of an upload whose client goes away mid-body: no open file, no spool folder', async () => {
    const marker = `\x1f\x8bpartial-${randomBytes(8).toString('hex')}`;
    const { socket, file } = await startRawUpload(api, marker);
    socket.destroy();
    await waitFor('the spool file closed and removed', async () => (!holdsOpen(file) && !existsSync(dirname(file)) ? true : undefined), 30_000, 20);
  });

  it('answers an upload over the limit with 413 once its spool file is closed, while the client still sends', async () => {
    const small = await startApiOnly({ BROWSERFN_MAX_ARCHIVE_BYTES: String(64 * 1024) });
    try {
      const marker = `\x1f\x8boversize-${randomBytes(8).toString('hex')}`;
      const { socket, file } = await startRawUpload(small, marker);
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      // Past the limit, but far from the announced length: the body is not over when the answer comes.
      socket.write(randomBytes(128 * 1024));
      await waitFor('the 413 with its body', async () => (/\r\n\r\n\{.*\}/s.test(answer) ? true : undefined), 30_000, 20);
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.match(answer, /over the 65536-byte/);
      assert.equal(holdsOpen(file), false, 'the spool file is closed by the time of the answer');
      await waitFor('the spool folder removed', async () => (!existsSync(dirname(file)) ? true : undefined), 30_000, 20);
      socket.destroy();
    } finally {
      await small.stop();
    }
  });

  it('refuses a malformed multipart body with 400, storing nothing', async () => {
    const before = await api.storedBuildObjects();
    for (const body of ['--x\r\nContent-Disposition: form-data; name="archive"\r\n', '--x\r\nnot a header line\r\n\r\nabc\r\n--x--\r\n', 'no boundary at all']) {
      const response = await api.request('POST', '/v1/functions/builds', body, { 'content-type': 'multipart/form-data; boundary=x' });
      assert.equal(response.status, 400, `${JSON.stringify(body)}: ${response.text}`);
      assert.match(response.body.message, /^Malformed multipart body: /);
    }
    assert.deepEqual(await api.storedBuildObjects(), before);
  });

  it('still accepts an ordinary project', async () => {
    const response = await upload(await archiveProject(fixtureProject('multi-file')));
    assert.equal(response.status, 201, JSON.stringify(response.body));
    assert.equal(response.body.status, 'PENDING');
  });
});

/** One file entry claiming `size` bytes of zeros: a few hundred KiB of gzip. */
async function gzipBomb(size: number): Promise<Buffer> {
  const header = new Header({ path: 'zeros', type: 'File', size, mode: 0o644, mtime: new Date(0) });
  header.encode();
  const zeros = Buffer.alloc(1024 * 1024);
  async function* tar() {
    yield header.block!;
    for (let left = size; left > 0; left -= zeros.length) yield left >= zeros.length ? zeros : zeros.subarray(0, left);
    yield Buffer.alloc(1024);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of Readable.from(tar()).pipe(createGzip({ level: 9 }))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The spool files this process (the façade runs in it) has open, removed or not, with what they hold so far. */
function openSpoolFiles(): { path: string; content: string }[] {
  const spoolFile = new RegExp(`^${tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/browserfn-upload-[^/]+/archive\\.tar\\.gz`);
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const path = readlinkSync(join('/proc/self/fd', fd));
      return spoolFile.test(path) ? [{ path: path.replace(/ \(deleted\)$/, ''), content: readFileSync(join('/proc/self/fd', fd), 'latin1') }] : [];
    } catch {
      return [];
    }
  });
}

/** Whether this process (the façade runs in it) still has the file open (removed or not). */
function holdsOpen(path: string): boolean {
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(join('/proc/self/fd', fd)).startsWith(path);
    } catch {
      return false;
    }
  });
}
