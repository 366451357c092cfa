// esbuild reads nothing outside the project and its node_modules, whatever leads there: links in
// node_modules, glob imports, a tsconfig.json "extends" — and never shows such a file's content.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BuildFailure } from '../../src/build/build-failure.js';
import { bundleEntry } from '../../src/build/bundle.js';
import { defaultRuntimeModulesDir } from '../../src/runtime/sandbox/runtime-modules.js';

describe('bundle containment', () => {
  let root: string;
  let projectDir: string;
  let secret: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'browserfn-containment-'));
    projectDir = join(root, 'project');
    mkdirSync(projectDir);
    secret = `secret-${randomBytes(12).toString('hex')}`;
    mkdirSync(join(root, 'outside'));
    writeFileSync(join(root, 'outside', 'index.js'), `export default ${JSON.stringify(secret)};\n`);
    writeFileSync(join(root, 'outside', 'package.json'), JSON.stringify({ name: 'outside', main: 'index.js' }));
    writeFileSync(join(root, 'secret.txt'), secret);
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function write(files: Record<string, string>): void {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(projectDir, path, '..'), { recursive: true });
      writeFileSync(join(projectDir, path), content);
    }
  }

  function bundle(entry = 'index.mts') {
    return bundleEntry({ entryPath: join(projectDir, entry), entryName: entry, projectDir, outFile: join(root, 'out', 'bundle.mjs'), runtimeModulesDir: defaultRuntimeModulesDir() });
  }

  async function refused(message: RegExp, entry?: string): Promise<void> {
    await assert.rejects(bundle(entry), (error: unknown) => {
      assert.ok(error instanceof BuildFailure);
      assert.equal(error.code, 'BUNDLE_FAILED');
      assert.match(error.message, message);
      assert.ok(!error.message.includes(secret), 'the outside file\'s content is never shown');
      return true;
    });
  }

  it('refuses a package in node_modules that is a link to a folder outside the project', async () => {
    mkdirSync(join(projectDir, 'node_modules'));
    symlinkSync(join(root, 'outside'), join(projectDir, 'node_modules', 'outside'));
    write({ 'index.mts': "import s from 'outside';\nconsole.log(s);\n" });
    await refused(/index\.mts:1:15: error: Import "outside" in index\.mts is refused: .*outside\/index\.js is outside the project/);
  });

  it('refuses files a glob import would pull in from outside the project', async () => {
    write({ 'index.mts': 'const name = process.argv[2];\nconsole.log(await import(`../${name}.txt`));\n' });
    await refused(/Loading .*secret\.txt is refused: it is outside the project/);
  });

  it("does not show a file outside the project that a tsconfig.json's extends makes esbuild read", async () => {
    write({ 'tsconfig.json': JSON.stringify({ extends: '../secret.txt' }), 'index.mts': 'export const x = 1;\n' });
    await refused(/esbuild read \.\.\/secret\.txt, which is outside the project .*its content is not shown/);
  });

  it('bundles packages linked to folders inside the project, and browserfn from the SDK', async () => {
    write({ 'vendor/lib/package.json': JSON.stringify({ name: 'lib', main: 'index.js' }), 'vendor/lib/index.js': 'export const answer = 42;\n' });
    mkdirSync(join(projectDir, 'node_modules'));
    symlinkSync(join(projectDir, 'vendor', 'lib'), join(projectDir, 'node_modules', 'lib'));
    write({ 'data.txt': 'inside text', 'index.mts': "import { answer } from 'lib';\nimport t from './data.txt' with { type: 'text' };\nimport { defineFn } from 'browserfn';\ndefineFn('x', async () => [answer, t]);\n" });
    const result = await bundle();
    const code = result.code.toString('utf8');
    assert.match(code, /answer = 42/);
    assert.match(code, /inside text/);
  });
});
