// Two node agents on one host (two `serve` instances) must not share pod uids or loopback
// addresses: each holds a block of its own while its process lives.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claimHostIds, hostIdBlock, type HostIds } from '../../src/runtime/node-agent/host-ids.js';

const HOST_IDS_MODULE = fileURLToPath(new URL('../../src/runtime/node-agent/host-ids.js', import.meta.url));

/** A process of its own that claims a block, says which, and holds it until killed. */
async function holderProcess(): Promise<{ child: ChildProcess; block: number }> {
  const code = `import(${JSON.stringify(HOST_IDS_MODULE)}).then(async (m) => { const ids = await m.claimHostIds(); console.log(ids.block); setInterval(() => {}, 1000); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { child, block: Number(line.toString().trim()) };
}

function overlap(a: { first: number; count: number }, b: { first: number; count: number }): boolean {
  return a.first < b.first + b.count && b.first < a.first + a.count;
}

describe('host ids: one block per node agent on a host', function () {
  this.timeout(30_000);
  const held: HostIds[] = [];
  const children: ChildProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'browserfn-host-ids-'));

  afterEach(async () => {
    await Promise.all(held.splice(0).map((ids) => ids.release()));
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives two claims different blocks whose uids and loopback addresses do not overlap', async () => {
    const [a, b] = [await claimHostIds(), await claimHostIds()];
    held.push(a, b);
    assert.notEqual(a.block, b.block);
    assert.notEqual(a.loopbackOctet, b.loopbackOctet);
    for (const [x, y] of [[a.podUids, b.podUids], [a.projectUids, b.projectUids], [a.podUids, b.projectUids], [a.projectUids, b.podUids], [a.podUids, a.projectUids]]) {
      assert.ok(!overlap(x, y), `${JSON.stringify(x)} and ${JSON.stringify(y)} overlap`);
    }
  });

  it('hands a released block out again', async () => {
    const first = await claimHostIds();
    await first.release();
    const again = await claimHostIds();
    held.push(again);
    assert.equal(again.block, first.block);
  });

  it('skips a block another process holds, and frees it when that process is killed', async () => {
    const holder = await holderProcess();
    children.push(holder.child);
    const mine = await claimHostIds(join(dir, 'memo-held'));
    held.push(mine);
    assert.notEqual(mine.block, holder.block);
    holder.child.kill('SIGKILL');
    await once(holder.child, 'exit');
    writeFileSync(join(dir, 'memo-freed'), `${holder.block}\n`);
    const freed = await claimHostIds(join(dir, 'memo-freed'));
    held.push(freed);
    assert.equal(freed.block, holder.block, 'a killed holder leaves nothing behind');
  });

  it('prefers the block its memo names, and records the one it got', async () => {
    const memo = join(dir, 'memo');
    writeFileSync(memo, '7\n');
    const ids = await claimHostIds(memo);
    held.push(ids);
    assert.equal(ids.block, 7);
    assert.deepEqual(ids.podUids, hostIdBlock(7).podUids);
    const other = await claimHostIds(memo);
    held.push(other);
    assert.notEqual(other.block, 7);
    assert.equal(readFileSync(memo, 'utf8').trim(), String(other.block));
  });

  it('keeps the ranges of earlier versions in block 0 (existing npm caches keep their owners)', () => {
    assert.deepEqual(hostIdBlock(0).podUids, { first: 1_000_000, count: 100_000 });
    assert.deepEqual(hostIdBlock(0).projectUids, { first: 1_100_000, count: 100_000 });
    assert.equal(hostIdBlock(0).loopbackOctet, 0);
  });
});
