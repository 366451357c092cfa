// How the compiled entry resolves packages: installed ones stay external; `playwright`/`puppeteer`
// become the runtime's -core packages; an optional require() stays optional but never reaches
// outside the project.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BuildFailure } from '../../src/build/build-failure.js';
import { bundleEntry } from '../../src/build/bundle.js';
import { defaultRuntimeModulesDir } from '../../src/runtime/sandbox/runtime-modules.js';

describe('bundle resolution of packages the project does not install', () => {
  let root: string;
  let projectDir: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'browserfn-resolution-'));
    projectDir = join(root, 'project');
    mkdirSync(projectDir);
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function bundle(files: Record<string, string>) {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(projectDir, path, '..'), { recursive: true });
      writeFileSync(join(projectDir, path), content);
    }
    return bundleEntry({ entryPath: join(projectDir, 'index.mjs'), entryName: 'index.mjs', projectDir, outFile: join(root, 'out', 'bundle.mjs'), runtimeModulesDir: defaultRuntimeModulesDir() });
  }

  it('imports playwright, its subpaths that playwright-core exports, and puppeteer from the runtime -core packages', async () => {
    const result = await bundle({
      'index.mjs': `import { chromium } from 'playwright';\nimport pkg from 'playwright/package.json' with { type: 'json' };\nimport puppeteer from 'puppeteer';\nexport { chromium, pkg, puppeteer };\n`,
    });
    const code = result.code.toString();
    assert.match(code, /from "playwright-core"/);
    assert.match(code, /from "playwright-core\/package\.json"/);
    assert.match(code, /from "puppeteer-core"/);
    assert.doesNotMatch(code, /from "(playwright|puppeteer)"/);
  });

  it('keeps packages installed in node_modules external (they run from the installed tree) and compiles the project\'s own files in', async () => {
    const result = await bundle({
      'node_modules/reads-beside/package.json': JSON.stringify({ name: 'reads-beside', main: 'index.js' }),
      'node_modules/reads-beside/index.js': "module.exports = require('fs').readFileSync(require('path').join(__dirname, 'asset.txt'), 'utf8');\n",
      'lib/own.mjs': 'export const own = "own file";\n',
      'index.mjs': `import text from 'reads-beside';\nimport { own } from './lib/own.mjs';\nconst lazy = () => import('reads-beside');\nexport { text, own, lazy };\n`,
    });
    const code = result.code.toString();
    assert.match(code, /from "reads-beside"/);
    assert.match(code, /import\("reads-beside"\)/);
    assert.match(code, /"own file"/);
    assert.doesNotMatch(code, /asset\.txt/, 'the package itself is not inlined');
  });

  it('fails the build on a playwright subpath that playwright-core lacks, saying what to import instead', async () => {
    await assert.rejects(bundle({ 'index.mjs': `import { test } from 'playwright/test';\nexport { test };\n` }), (error: unknown) => {
      assert.ok(error instanceof BuildFailure);
      assert.equal(error.code, 'BUNDLE_FAILED');
      assert.match(error.message, /index\.mjs:1:\d+: error: "playwright\/test" has no counterpart in playwright-core/);
      return true;
    });
  });

  it('warns about an optional require() that does not resolve, naming the package and the file', async () => {
    const result = await bundle({ 'index.mjs': `import './probe.cjs';\n`, 'probe.cjs': `try { require('bufferutil'); } catch {}\n` });
    assert.equal(result.warnings.length, 1);
    assert.match(result.warnings[0], /^probe\.cjs:1:\d+: warning: require\("bufferutil"\) does not resolve in the installed packages; it throws MODULE_NOT_FOUND if reached at run time/);
  });

  it('still refuses an optional require() that resolves through a link outside the project', async () => {
    mkdirSync(join(root, 'outside'));
    writeFileSync(join(root, 'outside', 'index.js'), 'module.exports = "outside";\n');
    writeFileSync(join(root, 'outside', 'package.json'), JSON.stringify({ name: 'outside', main: 'index.js' }));
    mkdirSync(join(projectDir, 'node_modules'));
    symlinkSync(join(root, 'outside'), join(projectDir, 'node_modules', 'outside'), 'dir');
    await assert.rejects(bundle({ 'index.mjs': `import './probe.cjs';\n`, 'probe.cjs': `try { require('outside'); } catch {}\n` }), /Import "outside" in probe\.cjs is refused: \S+\/outside\/index\.js is outside the project/);
  });
});
