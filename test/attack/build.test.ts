// Attack reproductions against the build agent (issue 8, item 2): a hostile project tries to run
// its own programs through npm's configuration, read the build host's files through esbuild, and
// leave the project through chains of links. Each attack now gets nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildReport } from '../../src/schemas/reports.js';
import { BUILD_AGENT_MAIN, runAgent } from '../runtime/support/agent-process.js';
import { TestControlPlane } from '../runtime/support/test-control-plane.js';
import { archiveProject, tarGz } from '../build/project-archive.js';

const NAMESPACE = 'project-attack';
const ENTRY = "import { defineFn } from 'browserfn';\ndefineFn('ok', async () => 1);\n";

describe('attack: builds turned against the server', function () {
  this.timeout(120_000);
  let workRoot: string;
  let plane: TestControlPlane;
  let counter = 0;

  before(async () => {
    workRoot = mkdtempSync(join(tmpdir(), 'browserfn-build-attack-'));
    plane = await TestControlPlane.start(`token-${randomBytes(12).toString('hex')}`);
  });

  after(async () => {
    await plane.close();
    rmSync(workRoot, { recursive: true, force: true });
  });

  /** Runs one build; the pod folder is `<workRoot>/<pod>`, the project `<workRoot>/<pod>/project`. */
  async function build(archive: Buffer, env: Record<string, string> = {}): Promise<BuildReport> {
    counter += 1;
    const pod = `attack-${counter}`;
    plane.addPod(NAMESPACE, pod, { input: { kind: 'build', buildId: pod, entrypoint: 'index.mts' }, artifact: archive });
    const { exitCode } = await runAgent({ main: BUILD_AGENT_MAIN, plane, namespace: NAMESPACE, pod, podDir: join(workRoot, pod), env });
    assert.equal(exitCode, 0);
    const [report] = plane.reportsOf(NAMESPACE, pod) as BuildReport[];
    assert.ok(!JSON.stringify(report).includes(plane.token), 'the pod token never appears in a report');
    return report;
  }

  function project(files: Record<string, string>, executables: string[] = []): string {
    const dir = mkdtempSync(join(workRoot, 'project-'));
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    for (const path of executables) chmodSync(join(dir, path), 0o755);
    return dir;
  }

  /** A script that, if ever run, leaves a marker file (with its environment) outside the project. */
  function markerScript(marker: string): string {
    return `#!/bin/sh\nenv > '${marker}'\n`;
  }

  /** A dependency from a folder inside the project: `npm ci` runs for real, without the registry. */
  const LOCAL_DEPENDENCY = {
    'vendor/local-lib/package.json': JSON.stringify({ name: 'local-lib', version: '1.0.0', type: 'module', main: 'index.js', scripts: { preinstall: './evil.sh' } }),
    'vendor/local-lib/index.js': 'export const shout = (s) => s.toUpperCase();\n',
    'package.json': JSON.stringify({ name: 'npmrc-attack', version: '1.0.0', private: true, dependencies: { 'local-lib': 'file:vendor/local-lib' } }),
    'package-lock.json': JSON.stringify({
      name: 'npmrc-attack',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'npmrc-attack', version: '1.0.0', dependencies: { 'local-lib': 'file:vendor/local-lib' } },
        'node_modules/local-lib': { resolved: 'vendor/local-lib', link: true },
        'vendor/local-lib': { version: '1.0.0', hasInstallScript: true },
      },
    }),
  };

  it(".npmrc program settings (git=, script-shell=, shell=, node-gyp=, node-options=) run nothing; npm ci still installs", async () => {
    const marker = join(workRoot, 'npmrc-programs-ran');
    const dir = project(
      {
        ...LOCAL_DEPENDENCY,
        '.npmrc': ['git=./evil.sh', 'script-shell=./evil.sh', 'shell=./evil.sh', 'node-gyp=./evil.sh', 'node-options=--require ./evil.cjs', 'userconfig=./evil-npmrc', 'registry=https://registry.npmjs.org/', ''].join('\n'),
        'evil.sh': markerScript(marker),
        'vendor/local-lib/evil.sh': markerScript(marker),
        'evil.cjs': `require('node:fs').writeFileSync(${JSON.stringify(marker)}, JSON.stringify(process.env));\n`,
        'index.mts': "import { shout } from 'local-lib';\nimport { defineFn } from 'browserfn';\ndefineFn('shout', async () => shout('hi'));\n",
      },
      ['evil.sh', 'vendor/local-lib/evil.sh'],
    );
    const report = await build(await archiveProject(dir));
    assert.equal(report.phase, 'COMPLETED', report.cause?.message);
    assert.deepEqual(report.functions?.map((fn) => fn.name), ['shout']);
    assert.ok(!existsSync(marker), 'none of the project\'s programs ran');
    const leftOut = report.logs.find((entry) => entry.message.startsWith("Left out of the project's .npmrc"));
    assert.match(leftOut?.message ?? '', /"git" \(set by the build\).*"script-shell" \(set by the build\).*"userconfig" \(set by the build\)/);
    assert.ok(report.logs.some((entry) => entry.message === "Using 1 setting(s) of the project's .npmrc"));
  });

  it('a git dependency in the lockfile fails the build, naming the package, before npm runs', async () => {
    const marker = join(workRoot, 'git-dependency-ran');
    const gitUrl = 'git+ssh://git@github.com/attacker/gitdep.git#0123456789abcdef0123456789abcdef01234567';
    const dir = project(
      {
        '.npmrc': 'git=./evil.sh\n',
        'evil.sh': markerScript(marker),
        'package.json': JSON.stringify({ name: 'git-attack', version: '1.0.0', dependencies: { gitdep: 'github:attacker/gitdep' } }),
        'package-lock.json': JSON.stringify({
          name: 'git-attack',
          lockfileVersion: 3,
          requires: true,
          packages: {
            '': { name: 'git-attack', version: '1.0.0', dependencies: { gitdep: 'github:attacker/gitdep' } },
            'node_modules/gitdep': { version: '1.0.0', resolved: gitUrl },
          },
        }),
        'index.mts': ENTRY,
      },
      ['evil.sh'],
    );
    const report = await build(await archiveProject(dir));
    assert.equal(report.phase, 'FAILED');
    assert.equal(report.cause?.code, 'DEPENDENCY_INSTALL_FAILED');
    assert.match(report.cause?.message ?? '', /node_modules\/gitdep is a git dependency \(git\+ssh:\/\/git@github\.com\/attacker\/gitdep\.git/);
    assert.match(report.cause?.message ?? '', /git dependencies are not supported/);
    assert.ok(!existsSync(marker));
  });

  it('a lockfile linking a folder outside the project fails the build', async () => {
    const dir = project({
      'package.json': JSON.stringify({ name: 'link-attack', version: '1.0.0', dependencies: { host: 'file:../../..' } }),
      'package-lock.json': JSON.stringify({
        name: 'link-attack',
        lockfileVersion: 3,
        packages: { '': { dependencies: { host: 'file:../../..' } }, 'node_modules/host': { resolved: '../../..', link: true }, '../../..': { version: '1.0.0' } },
      }),
      'index.mts': ENTRY,
    });
    const report = await build(await archiveProject(dir));
    assert.equal(report.cause?.code, 'DEPENDENCY_INSTALL_FAILED');
    assert.match(report.cause?.message ?? '', /node_modules\/host links to a folder outside the project \(\.\.\/\.\.\/\.\.\)/);
    assert.match(report.cause?.message ?? '', /"\.\.\/\.\.\/\.\." is a folder outside the project/);
  });

  it('npm gets forced settings, config files the build wrote, and none of the agent\'s environment', async () => {
    const record = join(workRoot, 'npm-call.json');
    const fakeNpm = join(workRoot, 'fake-npm.mjs');
    writeFileSync(
      fakeNpm,
      `#!/usr/bin/env node\nimport { existsSync, readFileSync, writeFileSync } from 'node:fs';\n` +
        `const userconfig = process.argv.find((a) => a.startsWith('--userconfig=')).slice('--userconfig='.length);\n` +
        `writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), env: process.env, projectNpmrc: existsSync('.npmrc'), userconfig: readFileSync(userconfig, 'utf8') }));\n`,
    );
    chmodSync(fakeNpm, 0o755);
    const dir = project({
      '.npmrc': '@acme:registry=https://npm.acme.example/\n//npm.acme.example/:_authToken=${NPM_TOKEN}\n//npm.acme.example/:_password=cGFzcw==\ncafile=/etc/shadow\n[section]\nregistry=https://elsewhere.example/\n',
      'package.json': JSON.stringify({ name: 'env-check', dependencies: { unused: '1.0.0' } }),
      'package-lock.json': JSON.stringify({ lockfileVersion: 3, packages: { '': {}, 'node_modules/unused': { version: '1.0.0', resolved: 'https://registry.npmjs.org/unused/-/unused-1.0.0.tgz' } } }),
      'index.mts': ENTRY,
    });
    const operatorConfig = join(workRoot, 'operator-npmrc');
    const report = await build(await archiveProject(dir), {
      BROWSERFN_NPM_PATH: fakeNpm,
      BROWSERFN_NPM_GLOBALCONFIG: operatorConfig,
      BROWSERFN_SOME_SETTING: 'agent-only',
      API_KEY: 'server-key',
      HTTPS_PROXY: 'http://proxy.example:3128',
    });
    assert.equal(report.phase, 'COMPLETED', report.cause?.message);
    const call = JSON.parse(readFileSync(record, 'utf8')) as { argv: string[]; env: Record<string, string>; projectNpmrc: boolean; userconfig: string };
    for (const flag of ['--ignore-scripts=true', '--allow-git=none', '--git=/bin/false', '--script-shell=/bin/false', '--shell=/bin/false', '--node-gyp=/bin/false', '--node-options=']) {
      assert.ok(call.argv.includes(flag), `${flag} in ${call.argv.join(' ')}`);
    }
    const podDir = join(workRoot, `attack-${counter}`);
    assert.ok(call.argv.includes(`--prefix=${join(podDir, 'project')}`));
    assert.ok(call.argv.includes(`--globalconfig=${operatorConfig}`));
    assert.ok(call.argv.includes(`--userconfig=${join(podDir, 'npm-config', 'npmrc')}`));
    assert.equal(call.projectNpmrc, false, "the project's .npmrc is not where npm would read it");
    assert.equal(call.userconfig, '@acme:registry=https://npm.acme.example/\n//npm.acme.example/:_password=cGFzcw==\n');
    assert.deepEqual(Object.keys(call.env).sort(), ['HOME', 'HTTPS_PROXY', 'PATH', 'TMPDIR']);
    assert.equal(call.env.HOME, join(podDir, 'home'));
  });

  it('user code imported at introspection sees none of the agent\'s environment', async () => {
    const dir = project({ 'index.mts': "throw new Error('ENV=' + JSON.stringify(process.env));\n" });
    const report = await build(await archiveProject(dir), { BROWSERFN_SOME_SETTING: 'agent-only', API_KEY: 'server-key' });
    assert.equal(report.cause?.code, 'INTROSPECTION_FAILED');
    const env = JSON.parse(/ENV=(\{.*?\})\n/.exec(report.cause?.message ?? '')?.[1] ?? '{}') as Record<string, string>;
    assert.ok(env.PATH, report.cause?.message);
    assert.deepEqual(Object.keys(env).filter((name) => /BROWSERFN|TOKEN|KEY/i.test(name)), []);
  });

  it("esbuild runs without the agent's environment (an ESBUILD_BINARY_PATH there is not used)", async () => {
    const marker = join(workRoot, 'esbuild-binary-ran');
    const fakeEsbuild = join(workRoot, 'fake-esbuild.sh');
    writeFileSync(fakeEsbuild, `${markerScript(marker)}exit 1\n`);
    chmodSync(fakeEsbuild, 0o755);
    const report = await build(await archiveProject(project({ 'index.mts': ENTRY })), { ESBUILD_BINARY_PATH: fakeEsbuild });
    assert.equal(report.phase, 'COMPLETED', report.cause?.message);
    assert.ok(!existsSync(marker));
  });

  it("esbuild's text loader cannot read a file outside the project, nor /etc/passwd", async () => {
    const secret = `pod-token-${randomBytes(16).toString('hex')}`;
    writeFileSync(join(workRoot, 'pod-token.secret'), secret);
    const outside = project({ 'index.mts': `import t from '../../pod-token.secret' with { type: 'text' };\n${ENTRY}console.log(t);\n` });
    const report = await build(await archiveProject(outside));
    assert.equal(report.cause?.code, 'BUNDLE_FAILED');
    assert.match(report.cause?.message ?? '', /index\.mts:1:15: error: Import "\.\.\/\.\.\/pod-token\.secret" in index\.mts is refused: .*pod-token\.secret is outside the project/);
    assert.ok(!JSON.stringify(report).includes(secret));

    const passwd = project({ 'lib/read.mts': "import p from '/etc/passwd' with { type: 'text' };\nexport default p;\n", 'index.mts': `import p from './lib/read.mts';\n${ENTRY}console.log(p);\n` });
    const passwdReport = await build(await archiveProject(passwd));
    assert.equal(passwdReport.cause?.code, 'BUNDLE_FAILED');
    assert.match(passwdReport.cause?.message ?? '', /Import "\/etc\/passwd" in lib\/read\.mts is refused: \/etc\/passwd is outside the project/);
    assert.ok(!JSON.stringify(passwdReport).includes('root:x:0:0'));
  });

  it('a chain of links in the archive (lnk -> ., up4 -> lnk/lnk/lnk/lnk/../../../..) is refused before anything is written', async () => {
    const report = await build(
      tarGz([
        { path: 'index.mts', content: `import t from './up4/pod-token.secret' with { type: 'text' };\n${ENTRY}` },
        { path: 'lnk', type: 'SymbolicLink', linkpath: '.' },
        { path: 'up4', type: 'SymbolicLink', linkpath: 'lnk/lnk/lnk/lnk/../../../..' },
      ]),
    );
    assert.equal(report.cause?.code, 'INVALID_ARCHIVE');
    assert.match(report.cause?.message ?? '', /link "up4" points outside the project/);
    assert.ok(!existsSync(join(workRoot, `attack-${counter}`, 'project', 'index.mts')));
  });
});
