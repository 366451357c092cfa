// Hostile project archives are refused at upload: a 400 naming the entry and the rule, and no
// Build or archive left in the store. The façade runs as `browserfn api` does (no controllers, no
// pods), so what is checked is the upload alone.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { Header } from 'tar';
import { archiveProject, tarGz } from '../build/project-archive.js';
import { startApiOnly, type ApiOnlyService } from '../support/api-only.js';
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
