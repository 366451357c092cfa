// Attack: user code sends its pod agent's runtime API a path with a malformed percent-escape (an
// uncaught URIError used to kill the agent, losing the invocation's report). Every such request is
// a 4xx and the agent goes on to report the invocation.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { artifactOf } from '../support/artifact.js';
import type { InvocationReport } from '../../src/runtime/pod-agent/invocation-report.js';
import { POD_AGENT_MAIN, runAgent } from '../runtime/support/agent-process.js';
import { TestControlPlane } from '../runtime/support/test-control-plane.js';
import { writeProject } from '../support/projects.js';

const MALFORMED_PATHS = [
  '/2018-06-01/runtime/invocation/%E0%A4%A/response',
  '/2018-06-01/runtime/invocation/%/error',
  '/2018-06-01/runtime/invocation/%zz%/response',
  '/2018-06-01/runtime/init/error%',
  '/%E0%A4%A',
];

const HANDLER = `
import { defineFn } from 'browserfn';
import { request } from 'node:http';

function send(path: string): Promise<number | string> {
  const [host, port] = (process.env.AWS_LAMBDA_RUNTIME_API ?? '').split(':');
  return new Promise((resolve) => {
    const req = request({ host, port: Number(port), method: 'POST', path, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? String(err)));
    req.end('{}');
  });
}

defineFn('malformed', async (_ctx, params: { paths: string[] }) => {
  const statuses: Record<string, number | string> = {};
  for (const path of params.paths) statuses[path] = await send(path);
  return { statuses };
});
`;

describe('attack: malformed URLs sent to the runtime API', function () {
  this.timeout(120_000);
  let workRoot: string;
  let plane: TestControlPlane;

  before(async () => {
    workRoot = mkdtempSync(join(tmpdir(), 'browserfn-runtime-urls-'));
    plane = await TestControlPlane.start(`token-${process.pid}-${Date.now()}`);
  });
  after(async () => {
    await plane?.close();
    rmSync(workRoot, { recursive: true, force: true });
  });

  it('answers each with a 4xx; the agent keeps running and reports the invocation', async () => {
    const project = writeProject({ 'index.ts': HANDLER });
    const artifact = await artifactOf(project, 'index.ts');
    plane.addPod('ns', 'pod-1', {
      input: { kind: 'invocation', invocationId: 'inv-1', functionName: 'malformed', params: { paths: MALFORMED_PATHS }, sessionId: 's-1', sessionConfig: {}, timeoutSeconds: 30, region: 'us-west-2', secrets: {} },
      artifact,
    });
    const { exitCode } = await runAgent({ main: POD_AGENT_MAIN, plane, namespace: 'ns', pod: 'pod-1', podDir: join(workRoot, 'pod-1') });
    rmSync(project, { recursive: true, force: true });
    const [report] = plane.reportsOf('ns', 'pod-1') as InvocationReport[];
    assert.ok(report, 'the agent reported');
    assert.equal(exitCode, 0);
    assert.equal(report.phase, 'COMPLETED', JSON.stringify(report.cause));
    const { statuses } = report.results as { statuses: Record<string, number> };
    for (const path of MALFORMED_PATHS) assert.ok(statuses[path] >= 400 && statuses[path] < 500, `${path}: ${statuses[path]}`);
  });
});
