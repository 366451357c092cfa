// The build and Function reconcilers' decisions, table-driven over (object, observed children, now).
import assert from 'node:assert/strict';
import { BUILD_TIMEOUT_MS } from '../../src/schemas/deadlines.js';
import { ARCHIVE_WAIT_MS, buildOutcome, nextBuildStep, type BuildObservation } from '../../src/controller/policies/build.js';
import { functionReadiness } from '../../src/controller/policies/function-ready.js';
import { succeededCondition } from '../../src/controller/policies/succeeded-condition.js';
import type { BuildObject, BuildStatus, FunctionObject } from '../../src/schemas/resources.js';
import type { PodObject, PodStatus } from '../../src/schemas/pod.js';
import type { BuildReport } from '../../src/schemas/reports.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');

function build(status?: BuildStatus, functionNames?: string[]): BuildObject {
  return {
    apiVersion: 'browserfn.dev/v1alpha1',
    kind: 'Build',
    metadata: { name: 'b1', namespace: 'p', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { entrypoint: 'index.ts', archiveConfigMap: 'b1-archive', functionNames },
    status,
  } as BuildObject;
}
const pod = (status: PodStatus): PodObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b1-build', namespace: 'p' }, spec: { containers: [] }, status }) as PodObject;
const observe = (o: Partial<BuildObservation>): BuildObservation => ({
  build: build(),
  hasOutput: false,
  hasArchive: true,
  pod: undefined,
  runningBuildPods: 0,
  maxConcurrentBuilds: 2,
  now: T0,
  ...o,
});
const runningBuild = build({ phase: 'RUNNING', startedAt: '2026-01-01T00:00:00.000Z' });

describe('build policy', () => {
  const cases: { name: string; observed: BuildObservation; expect: Record<string, unknown> }[] = [
    { name: 'a deleted build needs nothing', observed: observe({ build: undefined }), expect: { action: 'none' } },
    { name: 'a finished build only cleans up', observed: observe({ build: build({ phase: 'FAILED' }) }), expect: { action: 'clean-up' } },
    { name: 'stored output finishes it', observed: observe({ build: runningBuild, hasOutput: true, pod: pod({ phase: 'Succeeded' }) }), expect: { action: 'finish-from-output' } },
    { name: 'a new build with its archive starts a pod and turns RUNNING', observed: observe({}), expect: { action: 'start-pod', markRunning: true, recheckAfterMs: BUILD_TIMEOUT_MS } },
    { name: 'no free build slot: waits', observed: observe({ runningBuildPods: 2 }), expect: { action: 'wait', recheckAfterMs: 1000 } },
    { name: 'the upload is not stored yet: waits for it', observed: observe({ hasArchive: false, now: T0 + ARCHIVE_WAIT_MS - 1 }), expect: { action: 'wait', recheckAfterMs: 250 } },
    {
      name: 'the upload never arrived: fails',
      observed: observe({ hasArchive: false, now: T0 + ARCHIVE_WAIT_MS }),
      expect: { action: 'fail', code: 'INTERNAL_ERROR', message: 'The uploaded archive is missing; publish again' },
    },
    {
      name: 'the pod ended without reporting: fails, pointing at the logs',
      observed: observe({ build: runningBuild, pod: pod({ phase: 'Failed', reason: 'Error' }) }),
      expect: { action: 'fail', code: 'INTERNAL_ERROR', message: 'The build process ended without reporting (Error); see the build logs' },
    },
    { name: 'a running build within its time waits for the rest', observed: observe({ build: runningBuild, pod: pod({ phase: 'Running' }), now: T0 + 1000 }), expect: { action: 'wait', recheckAfterMs: BUILD_TIMEOUT_MS - 1000 } },
    {
      name: 'a running build past its time: TIMED_OUT',
      observed: observe({ build: runningBuild, pod: pod({ phase: 'Running' }), now: T0 + BUILD_TIMEOUT_MS }),
      expect: { action: 'fail', code: 'TIMED_OUT', message: 'The build did not finish within 15 minutes' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const step = nextBuildStep(c.observed) as unknown as Record<string, unknown>;
      for (const [key, value] of Object.entries(c.expect)) assert.deepEqual(step[key], value, `${key} of ${JSON.stringify(step)}`);
    });
  }

  it('publishes the Functions a report found, only those the Build asked for', () => {
    const report = { kind: 'build', phase: 'COMPLETED', functions: [{ name: 'a' }, { name: 'b' }], logs: [] } as unknown as BuildReport;
    assert.deepEqual(buildOutcome(build(), report), { publish: report.functions });
    assert.deepEqual(buildOutcome(build(undefined, ['b']), report), { publish: [{ name: 'b' }] });
    assert.deepEqual(buildOutcome(build(undefined, ['c']), report), { fail: { code: 'NO_MANIFESTS_FOUND', message: 'The source does not define "c" with defineFn (it defines "a", "b")' } });
    const failed = { kind: 'build', phase: 'FAILED', cause: { code: 'BUNDLE_FAILED', message: 'x' }, logs: [] } as unknown as BuildReport;
    assert.deepEqual(buildOutcome(build(), failed), { fail: { code: 'BUNDLE_FAILED', message: 'x' } });
  });

  it('derives the Succeeded condition from phase and cause', () => {
    assert.deepEqual(succeededCondition({ phase: 'COMPLETED' }, 3), { type: 'Succeeded', status: 'True', reason: 'COMPLETED', message: undefined, observedGeneration: 3 });
    assert.equal(succeededCondition({ phase: 'FAILED', cause: { code: 'TIMED_OUT', message: 'm' } }, 1).reason, 'TIMED_OUT');
    assert.equal(succeededCondition({}, 1).status, 'Unknown');
  });
});

describe('Function readiness policy', () => {
  const fn = (version?: number) => ({ metadata: { name: 'f' }, spec: { name: 'f', version: version ? { number: version } : undefined } }) as unknown as FunctionObject;
  const table: [string, ReturnType<typeof functionReadiness>, ReturnType<typeof functionReadiness>['status'], string][] = [
    ['published by upload', functionReadiness(fn(2), { kind: 'none' }), 'True', 'Published'],
    ['nothing published', functionReadiness(fn(), { kind: 'none' }), 'False', 'NoVersion'],
    ['source unreadable', functionReadiness(fn(1), { kind: 'unavailable', problem: 'ConfigMap c has no key "k"' }), 'False', 'SourceUnavailable'],
    ['source building', functionReadiness(fn(), { kind: 'built-by', build: build({ phase: 'RUNNING' }) }), 'Unknown', 'Building'],
    ['source build failed', functionReadiness(fn(1), { kind: 'built-by', build: build({ phase: 'FAILED', cause: { code: 'BUNDLE_FAILED', message: 'x' } }) }), 'False', 'BuildFailed'],
    ['source built', functionReadiness(fn(1), { kind: 'built-by', build: build({ phase: 'COMPLETED' }) }), 'True', 'Published'],
  ];
  for (const [name, ready, status, reason] of table) {
    it(name, () => {
      assert.equal(ready.status, status);
      assert.equal(ready.reason, reason);
    });
  }
});
