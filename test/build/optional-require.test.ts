// Builds behave like Node for optional dependencies: a require() of a package that is not installed
// builds and throws MODULE_NOT_FOUND only when reached; a static import of one fails the build.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildReport } from '../../src/schemas/reports.js';
import type { InvocationReport } from '../../src/runtime/pod-agent/invocation-report.js';
import { BUILD_AGENT_MAIN, fixtureProject, POD_AGENT_MAIN, runAgent } from '../runtime/support/agent-process.js';
import { TestControlPlane } from '../runtime/support/test-control-plane.js';
import { archiveProject } from './project-archive.js';

const NAMESPACE = 'project-o';

describe('optional require() of packages that are not installed', function () {
  this.timeout(120_000);
  let workRoot: string;
  let plane: TestControlPlane;

  before(async () => {
    workRoot = mkdtempSync(join(tmpdir(), 'browserfn-optional-test-'));
    plane = await TestControlPlane.start(`token-${process.pid}-${Date.now()}`);
  });

  after(async () => {
    await plane.close();
    rmSync(workRoot, { recursive: true, force: true });
  });

  async function build(project: string): Promise<BuildReport> {
    const pod = `build-${project}`;
    plane.addPod(NAMESPACE, pod, { input: { kind: 'build', buildId: pod, entrypoint: 'index.mts' }, artifact: await archiveProject(fixtureProject(project)) });
    const { exitCode } = await runAgent({ main: BUILD_AGENT_MAIN, plane, namespace: NAMESPACE, pod, podDir: join(workRoot, pod) });
    assert.equal(exitCode, 0);
    return plane.reportsOf(NAMESPACE, pod)[0] as BuildReport;
  }

  it('builds a require() inside try/catch, which throws MODULE_NOT_FOUND at run time as in Node', async () => {
    const built = await build('optional-require');
    assert.equal(built.phase, 'COMPLETED', built.cause?.message);
    const pod = 'browser-optional-probe';
    plane.addPod(NAMESPACE, pod, {
      input: { kind: 'invocation', invocationId: 'i-probe', functionName: 'optional-probe', params: {}, sessionId: 's-probe', sessionConfig: {}, timeoutSeconds: 60, region: 'us-west-2', secrets: {} },
      artifact: plane.storedArtifactOf(NAMESPACE, 'build-optional-require') ?? Buffer.alloc(0),
    });
    const { exitCode } = await runAgent({ main: POD_AGENT_MAIN, plane, namespace: NAMESPACE, pod, podDir: join(workRoot, pod) });
    assert.equal(exitCode, 0);
    const report = plane.reportsOf(NAMESPACE, pod)[0] as InvocationReport;
    assert.equal(report.phase, 'COMPLETED', report.cause?.message);
    assert.deepEqual(report.results, { loaded: false, code: 'MODULE_NOT_FOUND', message: "Cannot find module 'not-installed-module'" });
  });

  it('fails the build on a static import of a package that is not installed, naming it and the importing file', async () => {
    const built = await build('missing-import');
    assert.equal(built.phase, 'FAILED');
    assert.equal(built.cause?.code, 'BUNDLE_FAILED');
    assert.match(built.cause?.message ?? '', /index\.mts:2:\d+: error: Could not resolve "not-installed-module"/);
  });
});
