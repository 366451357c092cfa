import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BuildFailure } from '../../src/build/build-failure.js';
import { ARCHIVE_LIMITS } from '../../src/build/build-limits.js';
import { extractProjectArchive, type ArchiveLimits } from '../../src/build/safe-extract.js';
import { tarGz } from './project-archive.js';

describe('project archive extraction', () => {
  let target: string;

  beforeEach(() => {
    target = mkdtempSync(join(tmpdir(), 'browserfn-extract-test-'));
  });

  afterEach(() => rmSync(target, { recursive: true, force: true }));

  async function refused(archive: Buffer, message: RegExp, limits: ArchiveLimits = ARCHIVE_LIMITS): Promise<void> {
    await assert.rejects(extractProjectArchive(archive, join(target, 'project'), limits), (error: unknown) => {
      assert.ok(error instanceof BuildFailure);
      assert.equal(error.code, 'INVALID_ARCHIVE');
      assert.match(error.message, message);
      return true;
    });
    assert.ok(!existsSync(join(target, 'project')), 'nothing is written when any entry is refused');
  }

  it('extracts files, directories and links that stay inside the project', async () => {
    const summary = await extractProjectArchive(
      tarGz([
        { path: 'src/', type: 'Directory' },
        { path: 'src/index.ts', content: 'export {};' },
        { path: 'src/alias.ts', type: 'SymbolicLink', linkpath: 'index.ts' },
        { path: 'copy.ts', type: 'Link', linkpath: 'src/index.ts' },
      ]),
      join(target, 'project'),
      ARCHIVE_LIMITS,
    );
    assert.deepEqual(summary, { entries: 4, bytes: 10 });
    assert.equal(readFileSync(join(target, 'project', 'src', 'index.ts'), 'utf8'), 'export {};');
    assert.equal(readlinkSync(join(target, 'project', 'src', 'alias.ts')), 'index.ts');
    assert.ok(lstatSync(join(target, 'project', 'copy.ts')).isFile());
  });

  it('refuses "..", absolute paths, links leading outside and device files', async () => {
    await refused(tarGz([{ path: 'ok.ts' }, { path: 'src/../../evil.ts' }]), /"src\/\.\.\/\.\.\/evil\.ts" contains "\.\."/);
    await refused(tarGz([{ path: '/etc/cron.d/evil' }]), /"\/etc\/cron\.d\/evil" is an absolute path/);
    await refused(tarGz([{ path: 'src/passwd', type: 'SymbolicLink', linkpath: '../../etc/passwd' }]), /link "src\/passwd" points outside the project/);
    await refused(tarGz([{ path: 'hosts', type: 'SymbolicLink', linkpath: '/etc/hosts' }]), /points to the absolute path "\/etc\/hosts"/);
    await refused(tarGz([{ path: 'shadow', type: 'Link', linkpath: '../shadow' }]), /points outside the project/);
    await refused(tarGz([{ path: 'tty', type: 'CharacterDevice' }]), /"tty" is a CharacterDevice entry/);
  });

  it('judges links by where they really point, through the other links of the archive', async () => {
    await refused(
      tarGz([
        { path: 'lnk', type: 'SymbolicLink', linkpath: '.' },
        { path: 'up4', type: 'SymbolicLink', linkpath: 'lnk/lnk/lnk/lnk/../../../..' },
      ]),
      /link "up4" points outside the project/,
    );
    // The link it passes through comes later in the archive.
    await refused(
      tarGz([
        { path: 'a/b/up', type: 'SymbolicLink', linkpath: '../deep/../..' },
        { path: 'a/deep', type: 'SymbolicLink', linkpath: '..' },
      ]),
      /link "a\/b\/up" points outside the project/,
    );
    await refused(tarGz([{ path: 'x', type: 'SymbolicLink', linkpath: 'y' }, { path: 'y', type: 'SymbolicLink', linkpath: 'x' }]), /link loop/);
    // Nested links fanning out are bounded, not followed forever.
    const fan = [{ path: 'l0', type: 'SymbolicLink' as const, linkpath: '.' }];
    for (let i = 1; i < 30; i += 1) fan.push({ path: `l${i}`, type: 'SymbolicLink', linkpath: `l${i - 1}/l${i - 1}` });
    await refused(tarGz(fan), /link loop/);
  });

  it('refuses writing through links, links replaced later, and hard links to anything but an earlier file', async () => {
    await refused(
      tarGz([
        { path: 'lnk', type: 'SymbolicLink', linkpath: '.' },
        { path: 'lnk/file.ts', content: 'x' },
      ]),
      /"lnk\/file\.ts" would be written through the link "lnk"/,
    );
    await refused(
      tarGz([
        { path: 'dir', type: 'SymbolicLink', linkpath: 'real' },
        { path: 'dir/', type: 'Directory' },
      ]),
      /"dir" appears more than once/,
    );
    await refused(tarGz([{ path: 'src/a.ts' }, { path: 'src', type: 'SymbolicLink', linkpath: '..' }]), /"src" appears more than once/);
    await refused(
      tarGz([
        { path: 'up', type: 'SymbolicLink', linkpath: 'lnk/..' },
        { path: 'lnk', type: 'SymbolicLink', linkpath: '.' },
        { path: 'passwd', type: 'Link', linkpath: 'up/etc/passwd' },
      ]),
      /hard link "passwd" points through the link "up"/,
    );
    await refused(
      tarGz([
        { path: 'sub/deep/s', type: 'SymbolicLink', linkpath: '../..' },
        { path: 'h', type: 'Link', linkpath: 'sub/deep/s' },
      ]),
      /hard link "h" must point to a regular file/,
    );
    await refused(tarGz([{ path: 'x', type: 'Link', linkpath: 'later.ts' }, { path: 'later.ts' }]), /hard link "x" must point to a regular file/);
  });

  it("leaves every file its owner's to read and write, and folders their default mode, whatever the archive says", async () => {
    await extractProjectArchive(
      tarGz([
        { path: 'index.ts', content: 'export {};' },
        { path: 'locked/', type: 'Directory', mode: 0o000 },
        { path: 'locked/f', content: 'x', mode: 0o000 },
        { path: 'run.sh', content: '#!/bin/sh\n', mode: 0o500 },
      ]),
      join(target, 'project'),
      ARCHIVE_LIMITS,
    );
    assert.equal(lstatSync(join(target, 'project', 'locked')).mode & 0o777, 0o755);
    assert.equal(lstatSync(join(target, 'project', 'locked', 'f')).mode & 0o777, 0o600);
    assert.equal(readFileSync(join(target, 'project', 'locked', 'f'), 'utf8'), 'x');
    assert.equal(lstatSync(join(target, 'project', 'run.sh')).mode & 0o777, 0o700);
  });

  it('keeps links that stay inside through other links, and drops set-id bits', async () => {
    await extractProjectArchive(
      tarGz([
        { path: 'src/', type: 'Directory' },
        { path: 'src/index.ts', content: 'export {};' },
        // (node-tar itself refuses a link whose target passes through a link already on disk)
        { path: 'via', type: 'SymbolicLink', linkpath: 'lnk/lnk/src/../src/index.ts' },
        { path: 'lnk', type: 'SymbolicLink', linkpath: '.' },
        { path: 'tool', content: '#!/bin/sh\n', mode: 0o6755 },
      ]),
      join(target, 'project'),
      ARCHIVE_LIMITS,
    );
    assert.equal(readFileSync(join(target, 'project', 'via'), 'utf8'), 'export {};');
    assert.equal(lstatSync(join(target, 'project', 'tool')).mode & 0o7777, 0o755);
  });

  it('refuses archives over the entry, size and compressed-size limits', async () => {
    const three = tarGz([{ path: 'a' }, { path: 'b' }, { path: 'c' }]);
    await refused(three, /more than 2 entries/, { ...ARCHIVE_LIMITS, maxEntries: 2 });
    await refused(tarGz([{ path: 'big', content: 'x'.repeat(2000) }]), /more than 1000 bytes/, { ...ARCHIVE_LIMITS, maxExtractedBytes: 1000 });
    await refused(three, /over the 10-byte limit/, { ...ARCHIVE_LIMITS, maxArchiveBytes: 10 });
    await refused(Buffer.from('not an archive at all, just text'), /cannot be read/);
  });
});
