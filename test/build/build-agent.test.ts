import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Header, Parser, type ReadEntry } from 'tar';
import type { BuildReport } from '../../src/schemas/reports.js';
import type { InvocationReport } from '../../src/runtime/pod-agent/invocation-report.js';
import { BUILD_AGENT_MAIN, fixtureProject, POD_AGENT_MAIN, runAgent, startAgent } from '../runtime/support/agent-process.js';
import { TestControlPlane } from '../runtime/support/test-control-plane.js';
import { archiveProject } from './project-archive.js';

const NAMESPACE = 'project-b';

describe('build agent', function () {
  this.timeout(60_000);
  let workRoot: string;
  let plane: TestControlPlane;
  let podCounter = 0;

  before(async () => {
    workRoot = mkdtempSync(join(tmpdir(), 'browserfn-build-agent-test-'));
    plane = await TestControlPlane.start(`token-${process.pid}-${Date.now()}`);
  });

  after(async () => {
    await plane.close();
    rmSync(workRoot, { recursive: true, force: true });
  });

  function buildPod(archive: Buffer, entrypoint: string): string {
    podCounter += 1;
    const pod = `build-${podCounter}`;
    plane.addPod(NAMESPACE, pod, { input: { kind: 'build', buildId: `b-${podCounter}`, entrypoint }, artifact: archive });
    return pod;
  }

  /** The artifact the last build stored. */
  let lastArtifact: Buffer | undefined;

  async function buildArchive(archive: Buffer, entrypoint: string, env: Record<string, string> = {}): Promise<BuildReport> {
    const pod = buildPod(archive, entrypoint);
    lastArtifact = undefined;
    const { exitCode } = await runAgent({ main: BUILD_AGENT_MAIN, plane, namespace: NAMESPACE, pod, podDir: join(workRoot, pod), env });
    assert.equal(exitCode, 0);
    const reports = plane.reportsOf(NAMESPACE, pod) as BuildReport[];
    assert.equal(reports.length, 1);
    assert.equal(reports[0].kind, 'build');
    lastArtifact = plane.storedArtifactOf(NAMESPACE, pod);
    if (reports[0].phase === 'COMPLETED') assert.equal(reports[0].artifact?.size, lastArtifact?.length, 'the reported artifact is the stored one');
    return reports[0];
  }

  async function buildProject(dir: string, entrypoint = 'index.mts'): Promise<BuildReport> {
    return buildArchive(await archiveProject(dir), entrypoint);
  }

  function scratchProject(files: Record<string, string>): string {
    const dir = mkdtempSync(join(workRoot, 'project-'));
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    return dir;
  }

  function assertFailed(report: BuildReport, code: string, message: RegExp): void {
    assert.equal(report.phase, 'FAILED', JSON.stringify(report.functions));
    assert.equal(report.cause?.code, code, report.cause?.message);
    assert.match(report.cause?.message ?? '', message);
    assert.equal(report.artifact, undefined);
    assert.equal(report.functions, undefined);
  }

  it('builds a multi-file TypeScript project using browserfn and finds the Functions of every imported file', async () => {
    const report = await buildProject(fixtureProject('multi-file'));
    assert.equal(report.phase, 'COMPLETED', report.cause?.message);
    assert.deepEqual(report.functions, [
      {
        name: 'greet',
        parametersSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      { name: 'health' },
      {
        name: 'page-title',
        sessionConfig: { browserSettings: { verified: true, solveCaptchas: true, viewport: { width: 1280, height: 720 } }, proxies: true },
      },
    ]);
    const files = await artifactFiles(lastArtifact ?? Buffer.alloc(0));
    assert.equal(files.get('__browserfn_main.mjs'), 'import "./index.browserfn.mjs";\n');
    const compiled = files.get('index.browserfn.mjs') ?? '';
    assert.match(compiled, /from "playwright-core"/, 'runtime packages stay external');
    assert.deepEqual(report.runtimePackages, ['playwright-core'], 'the runtime packages the code imports are reported');
    assert.doesNotMatch(compiled, /from "browserfn"/, 'the SDK is compiled in');
    for (const step of ['Extracting the project archive', 'Compiling index.mts', 'Artifact: ', 'Discovering Functions', 'Built 3 Function(s): greet, health, page-title']) {
      assert.ok(report.logs.some((entry) => entry.message.startsWith(step)), step);
    }
    const steps = report.logs.map((entry) => /^Step (\w+): \d+\.\d\d s$/.exec(entry.message)?.[1]).filter(Boolean);
    assert.deepEqual(steps, ['extract', 'install', 'bundle', 'introspect', 'upload']);

    // The bundle the build produced is what a browser pod runs.
    const pod = 'browser-from-build';
    plane.addPod(NAMESPACE, pod, {
      input: { kind: 'invocation', invocationId: 'i-1', functionName: 'greet', params: { name: 'ada' }, sessionId: 's-1', sessionConfig: {}, timeoutSeconds: 30, region: 'us-west-2', secrets: {} },
      artifact: lastArtifact ?? Buffer.alloc(0),
    });
    await runAgent({ main: POD_AGENT_MAIN, plane, namespace: NAMESPACE, pod, podDir: join(workRoot, pod) });
    const [invocation] = plane.reportsOf(NAMESPACE, pod) as InvocationReport[];
    assert.equal(invocation.phase, 'COMPLETED', invocation.cause?.message);
    assert.deepEqual(invocation.results, { greeting: 'HELLO ADA' });
  });

  it('fails with BUNDLE_FAILED naming the file, line and column of a syntax error', async () => {
    const report = await buildProject(fixtureProject('syntax-error'));
    assertFailed(report, 'BUNDLE_FAILED', /^Bundling index\.mts failed; fix these errors:\nbroken\.mts:3:17: error: Unexpected ";"\n/);
    assert.match(report.cause?.message ?? '', /3 \|   return value \+;\n\s+\| {17}\^/, 'with the offending line');
  });

  it('fails with NO_MANIFESTS_FOUND when nothing calls defineFn', async () => {
    assertFailed(await buildProject(fixtureProject('no-functions')), 'NO_MANIFESTS_FOUND', /index\.mts nor the files it imports call defineFn/);
  });

  it('fails with DUPLICATE_FUNCTION_NAME when two files define one name', async () => {
    assertFailed(await buildProject(fixtureProject('duplicate-name')), 'DUPLICATE_FUNCTION_NAME', /"scrape" is already defined/);
  });

  it('fails with INVALID_SESSION_CREATE_PARAMS for a sessionConfig the session API would refuse', async () => {
    const report = await buildProject(fixtureProject('bad-session-config'));
    assertFailed(report, 'INVALID_SESSION_CREATE_PARAMS', /Function "misconfigured"/);
    assert.match(report.cause?.message ?? '', /browserSettings\.verified must be boolean/);
    assert.match(report.cause?.message ?? '', /timeout must be >= 60/);
  });

  it('fails with INTROSPECTION_FAILED and the error when the entry throws at import', async () => {
    const report = await buildProject(fixtureProject('throws-at-import'));
    assertFailed(report, 'INTROSPECTION_FAILED', /threw while being imported.*Error: missing setting ENDPOINT/);
    assert.match(report.cause?.message ?? '', /at requireSetting/);
  });

  it('fails with INTROSPECTION_FAILED naming a package that is imported when the entry loads but not installed, and what to do', async () => {
    const dir = scratchProject({ 'index.mts': `import { defineFn } from 'browserfn';\nconst name = 'not-installed-' + 'pkg';\nawait import(name);\ndefineFn('never', async () => 1);\n` });
    const report = await buildProject(dir);
    assertFailed(report, 'INTROSPECTION_FAILED', /Cannot find package 'not-installed-pkg' imported from index\.browserfn\.mjs/);
    assert.match(report.cause?.message ?? '', /add the package to the dependencies in package\.json/);
  });

  it('fails with ENTRYPOINT_NOT_FOUND for a missing entry or one outside the project', async () => {
    const missing = await buildProject(fixtureProject('multi-file'), 'src/main.ts');
    assertFailed(missing, 'ENTRYPOINT_NOT_FOUND', /"src\/main\.ts" is not a file.*functions, index\.mts, lib, package\.json/);
    assertFailed(await buildProject(fixtureProject('multi-file'), '../index.mts'), 'ENTRYPOINT_NOT_FOUND', /must be a file path inside the project/);
  });

  it('fails with DEPENDENCY_INSTALL_FAILED when dependencies come with a pnpm lockfile only', async () => {
    const dir = scratchProject({
      'package.json': JSON.stringify({ name: 'pnpm-project', dependencies: { zod: '^4.1.5' } }),
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
      'index.mts': "import { defineFn } from 'browserfn';\ndefineFn('x', async () => 1);\n",
    });
    assertFailed(await buildProject(dir), 'DEPENDENCY_INSTALL_FAILED', /Found pnpm-lock\.yaml but no package-lock\.json.*npm install --package-lock-only/);
  });

  it('fails with BUNDLE_FAILED when the code imports a browser package the runtime does not provide', async () => {
    // A runtime image with puppeteer-core only; `playwright` means its playwright-core.
    const runtimeModules = scratchProject({ 'puppeteer-core/package.json': '{"name":"puppeteer-core"}' });
    const dir = scratchProject({ 'index.mts': "import { chromium } from 'playwright';\nimport { defineFn } from 'browserfn';\ndefineFn('x', async () => chromium.name());\n" });
    const report = await buildArchive(await archiveProject(dir), 'index.mts', { BROWSERFN_RUNTIME_MODULES: runtimeModules });
    assertFailed(report, 'BUNDLE_FAILED', /imports "playwright-core", which the Function runtime does not provide\. Use one of the provided packages instead: puppeteer-core\./);
  });

  it('stops an entry that never finishes importing: TIMED_OUT at the introspection limit, "terminated" on SIGTERM', async () => {
    const hanging = await archiveProject(
      scratchProject({ 'index.mts': "import { defineFn } from 'browserfn';\ndefineFn('late', async () => 1);\nawait new Promise(() => setInterval(() => undefined, 1000));\n" }),
    );
    const timedOut = await buildArchive(hanging, 'index.mts', { BROWSERFN_INTROSPECT_TIMEOUT_SECONDS: '1' });
    assertFailed(timedOut, 'TIMED_OUT', /did not finish within 1 seconds/);

    const pod = buildPod(hanging, 'index.mts');
    const agent = startAgent({ main: BUILD_AGENT_MAIN, plane, namespace: NAMESPACE, pod, podDir: join(workRoot, pod) });
    await plane.requested(`/internal/v1/pods/${NAMESPACE}/${pod}/artifact`);
    agent.child.kill('SIGTERM');
    assert.equal(await agent.exited, 0);
    const [report] = plane.reportsOf(NAMESPACE, pod) as BuildReport[];
    assertFailed(report, 'INTERNAL_ERROR', /^terminated$/);
  });

  it('refuses an archive with an entry escaping the project', async () => {
    const content = Buffer.from('escaped');
    const header = new Header({ path: '../escape.txt', type: 'File', size: content.length, mode: 0o644, mtime: new Date(0) });
    header.encode();
    const padding = Buffer.alloc((512 - (content.length % 512)) % 512);
    const archive = gzipSync(Buffer.concat([header.block!, content, padding, Buffer.alloc(1024)]));
    assertFailed(await buildArchive(archive, 'index.mts'), 'INVALID_ARCHIVE', /"\.\.\/escape\.txt" contains "\.\."/);
  });
});

/** The regular files of a tar.gz artifact, by path, as text. */
async function artifactFiles(artifact: Buffer): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const parser = new Parser({
    onReadEntry: (entry: ReadEntry) => {
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => {
        if (entry.type === 'File') files.set(entry.path.replace(/^\.\//, ''), Buffer.concat(chunks).toString('utf8'));
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    parser.on('end', resolve);
    parser.on('error', reject);
    parser.end(artifact);
  });
  return files;
}
