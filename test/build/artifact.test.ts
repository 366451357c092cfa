// The artifact a build ships: the installed tree without the runtime's packages (nor what only
// they need), aliases for playwright/puppeteer, the compiled entry beside the original, packed as
// tar.gz that the pods' safe extraction accepts; the build's warning for a pinned browser
// automation package that the runtime's replaces.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ARTIFACT_MAIN, compiledEntryPath, packArtifact, pruneRuntimePackages, writeArtifactMain } from '../../src/build/artifact.js';
import { extractArchive } from '../../src/runtime/agent-common/safe-extract.js';
import { defaultRuntimeModulesDir } from '../../src/runtime/sandbox/runtime-modules.js';
import { replacedVersionWarnings } from '../../src/build/runtime-versions.js';
import { ARTIFACT_LIMITS } from '../../src/runtime/pod-agent/artifact-limits.js';

describe('build artifact (the installed tree)', () => {
  let root: string;
  let project: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'browserfn-artifact-test-'));
    project = join(root, 'project');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function write(files: Record<string, string>): void {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(project, path)), { recursive: true });
      writeFileSync(join(project, path), content);
    }
  }
  const pkg = (name: string, dependencies: Record<string, string> = {}) => JSON.stringify({ name, version: '1.0.0', dependencies });

  it('prunes runtime packages at any depth and what only they need, keeps what the project needs, adds alias packages', () => {
    write({
      'package.json': pkg('app', { 'puppeteer-core': '1', playwright: '1', lib: '1' }),
      'node_modules/puppeteer-core/package.json': pkg('puppeteer-core', { 'only-puppeteer': '1', shared: '1' }),
      'node_modules/only-puppeteer/package.json': pkg('only-puppeteer'),
      'node_modules/shared/package.json': pkg('shared'),
      'node_modules/playwright/package.json': pkg('playwright', { 'playwright-core': '1' }),
      'node_modules/playwright-core/package.json': pkg('playwright-core'),
      'node_modules/lib/package.json': pkg('lib', { shared: '1', 'chrome-remote-interface': '1' }),
      'node_modules/lib/node_modules/chrome-remote-interface/package.json': pkg('chrome-remote-interface'),
      'node_modules/.package-lock.json': JSON.stringify({
        lockfileVersion: 3,
        packages: {
          'node_modules/puppeteer-core': { dependencies: { 'only-puppeteer': '1', shared: '1' } },
          'node_modules/only-puppeteer': {},
          'node_modules/shared': {},
          'node_modules/playwright': { dependencies: { 'playwright-core': '1' } },
          'node_modules/playwright-core': {},
          'node_modules/lib': { dependencies: { shared: '1', 'chrome-remote-interface': '1' } },
          'node_modules/lib/node_modules/chrome-remote-interface': {},
        },
      }),
    });
    const pruned = pruneRuntimePackages(project);
    assert.deepEqual(pruned, {
      removed: ['chrome-remote-interface', 'playwright', 'playwright-core', 'puppeteer-core'],
      onlyTheirs: 1,
      replacedVersions: ['chrome-remote-interface@1.0.0', 'playwright-core@1.0.0', 'playwright@1.0.0', 'puppeteer-core@1.0.0'],
    });
    for (const gone of ['puppeteer-core', 'only-puppeteer', 'playwright-core', 'lib/node_modules/chrome-remote-interface']) assert.ok(!existsSync(join(project, 'node_modules', gone)), gone);
    for (const kept of ['shared', 'lib']) assert.ok(existsSync(join(project, 'node_modules', kept, 'package.json')), kept);
    assert.equal(readFileSync(join(project, 'node_modules/playwright/index.js'), 'utf8'), 'module.exports = require("playwright-core");\n');
    assert.match(readFileSync(join(project, 'node_modules/playwright/index.mjs'), 'utf8'), /^export \* from "playwright-core";/);
  });

  it('warns, by version, of each installed browser automation package the runtime\'s replaces with another version', () => {
    const runtimeModules = defaultRuntimeModulesDir();
    const runtime = (name: string) => (JSON.parse(readFileSync(join(runtimeModules, name, 'package.json'), 'utf8')) as { version: string }).version;
    const warnings = replacedVersionWarnings(['playwright@1.40.0', `playwright-core@${runtime('playwright-core')}`, 'puppeteer-core@21.0.0', 'left-pad@1.0.0'], runtimeModules);
    assert.deepEqual(warnings, [
      `The project installs playwright 1.40.0; its code runs with the runtime's playwright-core ${runtime('playwright-core')} instead (the runtime provides the browser automation packages). Test the code against ${runtime('playwright-core')}, or pin playwright to it.`,
      `The project installs puppeteer-core 21.0.0; its code runs with the runtime's puppeteer-core ${runtime('puppeteer-core')} instead (the runtime provides the browser automation packages). Test the code against ${runtime('puppeteer-core')}, or pin puppeteer-core to it.`,
    ]);
  });

  it('packs the tree with the compiled entry and a root module importing it; leaves out npm credentials, type declarations and bin links; keeps in-tree links', async () => {
    write({
      'package.json': pkg('app'),
      '.npmrc': '//registry.example/:_authToken=secret\n',
      'packages/fn/index.ts': 'export {};\n',
      'packages/shared/index.js': 'export const x = 1;\n',
      'node_modules/lib/index.js': 'module.exports = 1;\n',
      'node_modules/lib/index.d.ts': 'export {};\n',
      'node_modules/lib/data.wasm': 'wasm',
    });
    mkdirSync(join(project, 'node_modules/.bin'));
    symlinkSync('../lib/index.js', join(project, 'node_modules/.bin/lib'));
    symlinkSync('../packages/shared', join(project, 'node_modules/shared'), 'dir');
    const entry = compiledEntryPath(project, 'packages/fn/index.ts');
    assert.equal(entry, join(project, 'packages/fn/index.browserfn.mjs'));
    writeFileSync(entry, 'console.log("compiled");\n');
    writeArtifactMain(project, entry);
    const packed = await packArtifact(project);

    const code = join(root, 'code');
    await extractArchive(packed.bytes, code, ARTIFACT_LIMITS);
    assert.equal(readFileSync(join(code, ARTIFACT_MAIN), 'utf8'), 'import "./packages/fn/index.browserfn.mjs";\n');
    assert.equal(readFileSync(join(code, 'node_modules/lib/data.wasm'), 'utf8'), 'wasm');
    assert.equal(readFileSync(join(code, 'node_modules/shared/index.js'), 'utf8'), 'export const x = 1;\n');
    for (const gone of ['.npmrc', 'node_modules/lib/index.d.ts', 'node_modules/.bin']) assert.ok(!existsSync(join(code, gone)), gone);
    assert.equal(packed.files, 7);
  });
});
