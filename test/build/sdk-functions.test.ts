// The unmodified @browserbasehq/sdk-functions package, installed by the build from the project's
// lockfile (npm ci against the registry), must build and run like browserfn's own SDK.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildReport } from '../../src/schemas/reports.js';
import type { InvocationReport } from '../../src/runtime/pod-agent/invocation-report.js';
import { BUILD_AGENT_MAIN, fixtureProject, POD_AGENT_MAIN, runAgent } from '../runtime/support/agent-process.js';
import { TestControlPlane } from '../runtime/support/test-control-plane.js';
import { archiveProject } from './project-archive.js';

const NAMESPACE = 'project-c';

describe('@browserbasehq/sdk-functions projects', function () {
  // npm ci downloads the package and its dependencies from the registry.
  this.timeout(300_000);
  let workRoot: string;
  let npmCache: string;
  let plane: TestControlPlane;
  let pageServer: Server;
  let pageUrl: string;
  let built: BuildReport;

  before(async () => {
    workRoot = mkdtempSync(join(tmpdir(), 'browserfn-sdkf-test-'));
    npmCache = join(workRoot, 'npm-cache');
    mkdirSync(npmCache);
    plane = await TestControlPlane.start(`token-${process.pid}-${Date.now()}`);
    pageServer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>SDK Functions Page</title><p>hi</p>');
    });
    pageServer.listen(0, '127.0.0.1');
    await once(pageServer, 'listening');
    pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`;
  });

  after(async () => {
    await plane.close();
    pageServer.closeAllConnections();
    pageServer.close();
    rmSync(workRoot, { recursive: true, force: true });
  });

  async function build(project: string): Promise<BuildReport> {
    const pod = `build-${project}`;
    plane.addPod(NAMESPACE, pod, { input: { kind: 'build', buildId: pod, entrypoint: 'index.mts' }, artifact: await archiveProject(fixtureProject(project)) });
    const { exitCode } = await runAgent({ main: BUILD_AGENT_MAIN, plane, namespace: NAMESPACE, pod, podDir: join(workRoot, pod), env: { BROWSERFN_NPM_CACHE: npmCache } });
    assert.equal(exitCode, 0);
    return plane.reportsOf(NAMESPACE, pod)[0] as BuildReport;
  }

  async function invoke(functionName: string, params: Record<string, unknown>): Promise<InvocationReport> {
    const pod = `browser-${functionName}`;
    plane.addPod(NAMESPACE, pod, {
      input: { kind: 'invocation', invocationId: `i-${functionName}`, functionName, params, sessionId: `s-${functionName}`, sessionConfig: {}, timeoutSeconds: 60, region: 'us-west-2', secrets: {} },
      artifact: plane.storedArtifactOf(NAMESPACE, 'build-sdk-functions') ?? Buffer.alloc(0),
    });
    const { exitCode } = await runAgent({ main: POD_AGENT_MAIN, plane, namespace: NAMESPACE, pod, podDir: join(workRoot, pod) });
    assert.equal(exitCode, 0);
    return plane.reportsOf(NAMESPACE, pod)[0] as InvocationReport;
  }

  it('installs the lockfile with npm ci, bundles and discovers the Functions', async () => {
    built = await build('sdk-functions');
    assert.equal(built.phase, 'COMPLETED', built.cause?.message);
    assert.ok(built.logs.some((entry) => entry.message === 'Dependencies installed'));
    assert.deepEqual(
      built.functions?.map((fn) => fn.name),
      ['sdkf-failing', 'sdkf-page-title'],
    );
    const pageTitle = built.functions?.find((fn) => fn.name === 'sdkf-page-title');
    assert.deepEqual(pageTitle?.sessionConfig, { browserSettings: { solveCaptchas: false }, proxies: false });
    const schema = pageTitle?.parametersSchema as { type: string; properties: Record<string, { type: string }>; required: string[] };
    assert.equal(schema.type, 'object');
    assert.deepEqual(schema.properties, { url: { type: 'string' }, greeting: { type: 'string' } });
    assert.deepEqual([...schema.required].sort(), ['greeting', 'url']);
  });

  it('runs its handler in the pod agent with a working connectUrl', async () => {
    assert.equal(built?.phase, 'COMPLETED', 'needs the build of the previous test');
    const report = await invoke('sdkf-page-title', { url: pageUrl, greeting: 'hi there' });
    assert.equal(report.phase, 'COMPLETED', report.cause?.message);
    assert.deepEqual(report.results, { title: 'SDK Functions Page', greeting: 'hi there', sessionId: 's-sdkf-page-title' });
    assert.ok(report.logs.some((entry) => entry.message === `visited ${pageUrl}` && entry.level === 'info'));
  });

  it('reports its handler errors as WORKLOAD_ERROR with the whole stack in one log entry', async () => {
    assert.equal(built?.phase, 'COMPLETED', 'needs the build of the first test');
    const report = await invoke('sdkf-failing', {});
    assert.equal(report.phase, 'FAILED');
    assert.deepEqual(report.cause, { code: 'WORKLOAD_ERROR', message: 'sdk-functions handler failed' });
    const stack = report.logs.find((entry) => entry.level === 'error' && entry.message.startsWith('Error: sdk-functions handler failed\n    at '));
    assert.ok(stack, JSON.stringify(report.logs, null, 1));
  });

  it('fails with DUPLICATE_FUNCTION_NAME although sdk-functions overwrites the manifest silently', async () => {
    const report = await build('sdk-functions-duplicate');
    assert.equal(report.phase, 'FAILED');
    assert.equal(report.cause?.code, 'DUPLICATE_FUNCTION_NAME');
    assert.match(report.cause?.message ?? '', /"shared-name"/);
  });
});
