// Packing a project for upload: what goes into the archive and what stays out.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { list } from 'tar';
import { Readable } from 'node:stream';
import { isPacked, packProject } from '../../src/cli/pack.js';
import { writeProject } from '../support/projects.js';

async function archiveNames(archive: Buffer): Promise<string[]> {
  const names: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const parser = list({ onReadEntry: (entry) => names.push(entry.path) });
    parser.on('end', () => resolve()).on('error', reject);
    Readable.from([archive]).pipe(parser as unknown as NodeJS.WritableStream);
  });
  return names.sort();
}

describe('packing a project', () => {
  let root: string;
  before(() => {
    root = writeProject({
      'index.ts': 'export {};',
      'lib/util.ts': 'export const x = 1;',
      '.env': 'A=1',
      '.env.browserfn': 'B=2',
      'secrets.json': '{"TOKEN":"t"}',
      'debug.log': 'x',
      'ignored/file.ts': 'x',
      '.gitignore': 'ignored/\n',
    });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('leaves out env files, logs and .gitignored paths, and exactly the files it is told to', async () => {
    const plain = await packProject(join(root, 'index.ts'));
    assert.ok(plain.files.includes('secrets.json'), 'an unignored JSON file is packed by default');
    assert.ok(!plain.files.some((f) => f.startsWith('.env') || f.endsWith('.log') || f.startsWith('ignored/')), plain.files.join(', '));

    const told = await packProject(join(root, 'index.ts'), [join(root, 'secrets.json')]);
    assert.deepEqual(told.files.sort(), plain.files.filter((f) => f !== 'secrets.json').sort());
    assert.deepEqual(await archiveNames(told.archive), told.files.sort(), 'the archive holds exactly the listed files');
  });

  it('says whether a file would be packed', () => {
    assert.equal(isPacked(root, join(root, 'secrets.json')), true);
    assert.equal(isPacked(root, join(root, '.env.browserfn')), false);
    assert.equal(isPacked(root, join(root, 'ignored', 'file.ts')), false);
    assert.equal(isPacked(root, join(root, '..', 'elsewhere.json')), false, 'outside the project');
  });
});
