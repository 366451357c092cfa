// The invocation reconciler's decisions, table-driven over (object, observed children, now).
import assert from 'node:assert/strict';
import { MAX_ATTEMPTS, nextInvocationStep, type InvocationObservation } from '../../src/controller/policies/invocation.js';
import fc from 'fast-check';
import { loadSettings } from '../../src/config/settings.js';
import { admissionPlan, mayAdmit, mayAdmitBy, perProjectCap } from '../../src/controller/policies/admission.js';
import { POD_GRACE_SECONDS, SESSION_CLOSE_GRACE_MS } from '../../src/schemas/deadlines.js';
import { Annotations, Labels, type InvocationObject, type InvocationStatus } from '../../src/schemas/resources.js';
import { AGENT_CONTAINER, type PodObject, type PodStatus } from '../../src/schemas/pod.js';
import type { InvocationReport } from '../../src/schemas/reports.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const TIMEOUT_S = 60;
const s = (seconds: number) => seconds * 1000;

function invocation(status?: InvocationStatus, name = 'inv-1', queued = '2026-01-01T00:00:00.000Z'): InvocationObject {
  return {
    apiVersion: 'browserfn.dev/v1alpha1',
    kind: 'Invocation',
    metadata: { name, namespace: 'p', uid: `uid-${name}`, creationTimestamp: '2026-01-01T00:00:00Z', annotations: { 'browserfn.dev/created-at': queued } },
    spec: { functionName: 'f', functionUid: 'fu', versionId: 'v', bundleConfigMap: 'b', params: {}, sessionConfig: {}, timeoutSeconds: TIMEOUT_S, sessionId: 's' },
    status,
  } as InvocationObject;
}

const pod = (status: PodStatus): PodObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'inv-1-a1', namespace: 'p' }, spec: { containers: [] }, status }) as PodObject;
const running = (startedAt = T0, attempts = 1): InvocationStatus => ({ phase: 'RUNNING', podName: 'inv-1-a1', attempts, startedAt: new Date(startedAt).toISOString() });
const observe = (o: Partial<InvocationObservation>): InvocationObservation => ({ inv: invocation(), pod: undefined, report: undefined, now: T0, ...o });

describe('invocation policy', () => {
  const cases: { name: string; observed: InvocationObservation; expect: Record<string, unknown> }[] = [
    { name: 'a deleted invocation is forgotten', observed: observe({ inv: undefined }), expect: { action: 'forget' } },
    { name: 'a finished invocation only cleans up', observed: observe({ inv: invocation({ phase: 'COMPLETED', podName: 'inv-1-a1' }) }), expect: { action: 'clean-up' } },
    {
      name: 'a finished invocation whose pod reported waits, within the grace, for the pod to close the session',
      observed: observe({ inv: invocation({ phase: 'COMPLETED', podName: 'inv-1-a1' }), pod: pod({ phase: 'Running' }), closing: { reportStoredAt: T0, sessionRecorded: false }, now: T0 + s(10) }),
      expect: { action: 'wait', recheckAfterMs: SESSION_CLOSE_GRACE_MS - s(10) },
    },
    {
      name: 'its pod is deleted once the session records are in',
      observed: observe({ inv: invocation({ phase: 'COMPLETED', podName: 'inv-1-a1' }), pod: pod({ phase: 'Running' }), closing: { reportStoredAt: T0, sessionRecorded: true }, now: T0 + s(1) }),
      expect: { action: 'clean-up' },
    },
    {
      name: 'or once its agent has exited without them',
      observed: observe({
        inv: invocation({ phase: 'FAILED', podName: 'inv-1-a1' }),
        pod: pod({ phase: 'Running', containerStatuses: [{ name: AGENT_CONTAINER, state: { terminated: { exitCode: 1 } } }] } as PodStatus),
        closing: { reportStoredAt: T0, sessionRecorded: false },
        now: T0 + s(1),
      }),
      expect: { action: 'clean-up' },
    },
    {
      name: 'or once the grace has passed',
      observed: observe({ inv: invocation({ phase: 'COMPLETED', podName: 'inv-1-a1' }), pod: pod({ phase: 'Running' }), closing: { reportStoredAt: T0, sessionRecorded: false }, now: T0 + SESSION_CLOSE_GRACE_MS }),
      expect: { action: 'clean-up' },
    },
    {
      name: 'the pod of an invocation that ended without its report (cancelled, timed out) is deleted at once',
      observed: observe({ inv: invocation({ phase: 'FAILED', podName: 'inv-1-a1' }), pod: pod({ phase: 'Running' }), now: T0 + s(1) }),
      expect: { action: 'clean-up' },
    },
    { name: 'a new invocation asks for admission', observed: observe({}), expect: { action: 'admit' } },
    {
      name: 'a pod that started running marks the invocation RUNNING with its expiry',
      observed: observe({ inv: invocation({ phase: 'PENDING', podName: 'inv-1-a1', attempts: 1 }), pod: pod({ phase: 'Running' }), now: T0 + s(5) }),
      expect: { action: 'mark-running', status: { phase: 'RUNNING', startedAt: new Date(T0 + s(5)).toISOString(), expiresAt: new Date(T0 + s(65)).toISOString() }, recheckAfterMs: s(TIMEOUT_S + POD_GRACE_SECONDS) },
    },
    {
      name: 'a running invocation within its deadline waits for the rest of it',
      observed: observe({ inv: invocation(running()), pod: pod({ phase: 'Running' }), now: T0 + s(30) }),
      expect: { action: 'wait', recheckAfterMs: s(TIMEOUT_S + POD_GRACE_SECONDS - 30) },
    },
    {
      name: 'deadline passed without a report: FAILED with TIMED_OUT',
      observed: observe({ inv: invocation(running()), pod: pod({ phase: 'Running' }), now: T0 + s(TIMEOUT_S + POD_GRACE_SECONDS) }),
      expect: { action: 'finish', phase: 'FAILED', status: { cause: { code: 'TIMED_OUT', message: `The invocation did not finish within its timeout of ${TIMEOUT_S} s` }, endedAt: new Date(T0 + s(120)).toISOString() } },
    },
    {
      name: 'a pod the scheduler could not place by the deadline: FAILED with INTERNAL_ERROR quoting the scheduler',
      observed: observe({
        inv: invocation({ phase: 'PENDING', podName: 'inv-1-a1', attempts: 1 }),
        pod: pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available: 3 Insufficient memory.' }] }),
        now: T0 + s(TIMEOUT_S + POD_GRACE_SECONDS),
      }),
      expect: {
        action: 'finish',
        phase: 'FAILED',
        status: {
          cause: { code: 'INTERNAL_ERROR', message: `The browser pod inv-1-a1 never started: still Pending after the timeout of ${TIMEOUT_S} s and ${POD_GRACE_SECONDS} s of grace (Unschedulable: 0/3 nodes are available: 3 Insufficient memory.); the handler never ran` },
          endedAt: new Date(T0 + s(120)).toISOString(),
        },
      },
    },
    {
      name: 'a pod bound to a node that never started it: FAILED naming the node',
      observed: observe({ inv: invocation({ phase: 'PENDING', podName: 'inv-1-a1', attempts: 1 }), pod: { ...pod({ phase: 'Pending' }), spec: { containers: [], nodeName: 'node-7' } }, now: T0 + s(TIMEOUT_S + POD_GRACE_SECONDS + 1) }),
      expect: {
        action: 'finish',
        phase: 'FAILED',
        status: {
          cause: { code: 'INTERNAL_ERROR', message: `The browser pod inv-1-a1 never started: still Pending after the timeout of ${TIMEOUT_S} s and ${POD_GRACE_SECONDS} s of grace (assigned to node node-7, which did not start it); the handler never ran` },
          endedAt: new Date(T0 + s(121)).toISOString(),
        },
      },
    },
    {
      name: 'time spent in the queue does not count against the pod: one made just now for an invocation queued long ago is waited for',
      observed: observe({
        inv: invocation({ phase: 'PENDING', podName: 'inv-1-a1', attempts: 1 }),
        pod: { ...pod({ phase: 'Pending' }), metadata: { name: 'inv-1-a1', namespace: 'p', creationTimestamp: new Date(T0 + s(2000)).toISOString() } },
        now: T0 + s(2030),
      }),
      expect: { action: 'wait', recheckAfterMs: s(TIMEOUT_S + POD_GRACE_SECONDS - 30) },
    },
    {
      name: 'a claimed pool member counts from its claim, not from when it was made',
      observed: observe({
        inv: invocation({ phase: 'PENDING', podName: 'inv-1-a1', attempts: 1 }),
        pod: { ...pod({ phase: 'Pending' }), metadata: { name: 'inv-1-a1', namespace: 'p', creationTimestamp: new Date(T0 - s(1000)).toISOString(), labels: { [Labels.pool]: 'default' }, annotations: { [Annotations.claimedAt]: new Date(T0 + s(2000)).toISOString() } } },
        now: T0 + s(2010),
      }),
      expect: { action: 'wait', recheckAfterMs: s(TIMEOUT_S + POD_GRACE_SECONDS - 10) },
    },
    {
      name: 'a Pending pod before the deadline is waited for',
      observed: observe({ inv: invocation({ phase: 'PENDING', podName: 'inv-1-a1', attempts: 1 }), pod: pod({ phase: 'Pending' }), now: T0 + s(30) }),
      expect: { action: 'wait', recheckAfterMs: s(TIMEOUT_S + POD_GRACE_SECONDS - 30) },
    },
    {
      name: 'a cancel asked for ends it FAILED with CANCELLED, queued or running',
      observed: observe({ inv: { ...invocation(running()), metadata: { ...invocation().metadata, annotations: { 'browserfn.dev/cancel-requested-at': '2026-01-01T00:00:07.000Z' } } }, pod: pod({ phase: 'Running' }), now: T0 + s(8) }),
      expect: { action: 'finish', phase: 'FAILED', status: { cause: { code: 'CANCELLED', message: 'Cancelled on request at 2026-01-01T00:00:07.000Z' }, endedAt: new Date(T0 + s(8)).toISOString() } },
    },
    {
      name: 'a report already in wins over a cancel asked for after the handler ended',
      observed: observe({
        inv: { ...invocation(running()), metadata: { ...invocation().metadata, annotations: { 'browserfn.dev/cancel-requested-at': '2026-01-01T00:00:07.000Z' } } },
        report: { kind: 'invocation', phase: 'COMPLETED', results: 1, startedAt: 'a', endedAt: 'b', logs: [] } as InvocationReport,
      }),
      expect: { action: 'finish', phase: 'COMPLETED' },
    },
    {
      name: 'a report finishes it with the results',
      observed: observe({ inv: invocation(running()), pod: pod({ phase: 'Running' }), report: { kind: 'invocation', phase: 'COMPLETED', results: { ok: 1 }, startedAt: 'a', endedAt: 'b', logs: [] } as InvocationReport }),
      expect: { action: 'finish', phase: 'COMPLETED', status: { results: { ok: 1 }, cause: undefined, startedAt: 'a', endedAt: 'b' } },
    },
    {
      name: 'a report wins over an expired deadline',
      observed: observe({ inv: invocation(running()), report: { kind: 'invocation', phase: 'FAILED', cause: { code: 'WORKLOAD_ERROR', message: 'x' }, startedAt: 'a', endedAt: 'b', logs: [] } as InvocationReport, now: T0 + s(10_000) }),
      expect: { action: 'finish', phase: 'FAILED' },
    },
    {
      name: 'pod deleted before it reported, first attempt: retried',
      observed: observe({ inv: invocation(running()) }),
      expect: { action: 'retry', why: 'its browser pod was deleted before it reported' },
    },
    {
      name: 'pod ended without reporting, first attempt: retried',
      observed: observe({ inv: invocation(running()), pod: pod({ phase: 'Failed', reason: 'NodeRestarted' }) }),
      expect: { action: 'retry', why: 'its browser pod ended (NodeRestarted) without reporting' },
    },
    {
      name: `pod lost on attempt ${MAX_ATTEMPTS}: FAILED with INTERNAL_ERROR`,
      observed: observe({ inv: invocation(running(T0, MAX_ATTEMPTS)), now: T0 + s(1) }),
      expect: {
        action: 'finish',
        phase: 'FAILED',
        status: { cause: { code: 'INTERNAL_ERROR', message: 'The invocation could not finish: its browser pod was deleted before it reported' }, endedAt: new Date(T0 + s(1)).toISOString() },
      },
    },
    {
      name: 'pod of a PENDING invocation ended before the handler started, last attempt: says so',
      observed: observe({ inv: invocation({ phase: 'PENDING', podName: 'inv-1-a2', attempts: MAX_ATTEMPTS }), pod: pod({ phase: 'Failed', reason: 'Error' }) }),
      expect: { action: 'finish', phase: 'FAILED', status: { cause: { code: 'INTERNAL_ERROR', message: 'The invocation could not finish: its browser pod ended (Error) without reporting (the handler never started)' }, endedAt: new Date(T0).toISOString() } },
    },
    {
      name: 'a PENDING invocation whose pod vanished before running is admitted again',
      observed: observe({ inv: invocation({ phase: 'PENDING', podName: 'inv-1-a1', attempts: 1 }) }),
      expect: { action: 'admit' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const step = nextInvocationStep(c.observed) as unknown as Record<string, unknown>;
      for (const [key, value] of Object.entries(c.expect)) assert.deepEqual(step[key], value, `${key} of ${JSON.stringify(step)}`);
    });
  }
});

describe('admission policy', () => {
  const pending = (name: string, queued: string) => invocation(undefined, name, queued);
  const busy = (name: string) => invocation({ phase: 'RUNNING', podName: `${name}-a1` }, name);
  const sets = { admitted: new Set<string>(), finished: new Set<string>() };

  it('admits the oldest waiting invocations while slots are free', () => {
    const older = pending('b', '2026-01-01T00:00:01.000Z');
    const newer = pending('a', '2026-01-01T00:00:02.000Z');
    const invocations = [newer, older, busy('r')];
    assert.equal(mayAdmit({ ...sets, candidate: older, invocations, maxConcurrent: 2 }), true);
    assert.equal(mayAdmit({ ...sets, candidate: newer, invocations, maxConcurrent: 2 }), false, 'one slot: the older one takes it');
    assert.equal(mayAdmit({ ...sets, candidate: newer, invocations, maxConcurrent: 3 }), true);
  });

  it('counts admissions the cache does not show yet, and not invocations it just finished', () => {
    const candidate = pending('c', '2026-01-01T00:00:05.000Z');
    const invocations = [candidate, busy('r')];
    assert.equal(mayAdmit({ candidate, invocations, admitted: new Set(['p/x']), finished: new Set(), maxConcurrent: 2 }), false);
    assert.equal(mayAdmit({ candidate, invocations, admitted: new Set(), finished: new Set(['p/r']), maxConcurrent: 1 }), true);
  });

  it('treats a candidate missing from the cache as the newest', () => {
    const candidate = pending('late', '2026-01-01T00:00:00.000Z');
    assert.equal(mayAdmit({ ...sets, candidate, invocations: [pending('w', '2026-01-01T00:00:09.000Z')], maxConcurrent: 1 }), false);
    assert.equal(mayAdmit({ ...sets, candidate, invocations: [], maxConcurrent: 1 }), true);
  });

  it('orders invocations queued in the same millisecond by name', () => {
    const a = pending('a', '2026-01-01T00:00:01.000Z');
    const b = pending('b', '2026-01-01T00:00:01.000Z');
    assert.equal(mayAdmit({ ...sets, candidate: a, invocations: [b, a], maxConcurrent: 1 }), true);
    assert.equal(mayAdmit({ ...sets, candidate: b, invocations: [b, a], maxConcurrent: 1 }), false);
  });

  describe('fair between projects', () => {
    const inProject = (project: string, inv: InvocationObject): InvocationObject => ({ ...inv, metadata: { ...inv.metadata, namespace: project, uid: `uid-${project}-${inv.metadata.name}` } });
    const waitingIn = (project: string, name: string, second: number) => inProject(project, pending(name, `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`));
    const runningIn = (project: string, name: string) => inProject(project, busy(name));
    /** The order in which the waiting `invocations` start as slots free one at a time, up to `maxConcurrent`. */
    function admittedInOrder(invocations: InvocationObject[], maxConcurrent: number, maxRunningPerProject = 0): string[] {
      const admitted = new Set<string>();
      const started: string[] = [];
      const running = invocations.filter((i) => i.status?.podName).length;
      for (let round = 0; round < invocations.length; round += 1) {
        const slots = Math.min(maxConcurrent, running + admitted.size + 1);
        const next = invocations.find((c) => !c.status?.podName && !admitted.has(`${c.metadata.namespace}/${c.metadata.name}`) && mayAdmit({ candidate: c, invocations, admitted, finished: new Set(), maxConcurrent: slots, maxRunningPerProject }));
        if (!next) break;
        admitted.add(`${next.metadata.namespace}/${next.metadata.name}`);
        started.push(`${next.metadata.namespace}/${next.metadata.name}`);
      }
      return started;
    }

    it('takes projects in turn: a burst from one does not hold back the others', () => {
      const burst = Array.from({ length: 6 }, (_, i) => waitingIn('a', `a${i}`, i));
      const later = [waitingIn('b', 'b0', 10), waitingIn('b', 'b1', 11), waitingIn('c', 'c0', 12)];
      assert.deepEqual(admittedInOrder([...burst, ...later], 5), ['a/a0', 'b/b0', 'c/c0', 'a/a1', 'b/b1']);
    });

    it('lets a project holding many slots wait behind one holding none', () => {
      const invocations = [runningIn('a', 'r1'), runningIn('a', 'r2'), runningIn('a', 'r3'), waitingIn('a', 'a0', 0), waitingIn('b', 'b0', 30)];
      const candidateA = invocations[3];
      const candidateB = invocations[4];
      assert.equal(mayAdmit({ ...sets, candidate: candidateB, invocations, maxConcurrent: 4 }), true);
      assert.equal(mayAdmit({ ...sets, candidate: candidateA, invocations, maxConcurrent: 4 }), false, 'the one free slot goes to b, which runs nothing');
      assert.equal(mayAdmit({ ...sets, candidate: candidateA, invocations, maxConcurrent: 5 }), true);
    });

    it('keeps age order within a project and between projects on the same turn', () => {
      const invocations = [waitingIn('b', 'b0', 1), waitingIn('a', 'a1', 5), waitingIn('a', 'a0', 0), waitingIn('b', 'b1', 2)];
      assert.deepEqual(admittedInOrder(invocations, 4), ['a/a0', 'b/b0', 'b/b1', 'a/a1']);
    });

    it('on the same turn, gives the slot to the project served longest ago, whatever the age of its work', () => {
      const served = (project: string, name: string, startedAt: string) =>
        inProject(project, invocation({ phase: 'COMPLETED', podName: `${name}-a1`, startedAt, endedAt: startedAt }, name));
      const invocations = [
        served('a', 'done-a', '2026-01-01T00:01:00.000Z'),
        served('b', 'done-b', '2026-01-01T00:00:30.000Z'),
        waitingIn('a', 'a0', 0),
        waitingIn('b', 'b0', 20),
      ];
      assert.deepEqual(admittedInOrder(invocations, 1), ['b/b0'], 'b last started at 00:00:30, a at 00:01:00');
    });

    it('one plan for a state answers every waiting invocation as a plan of its own would, and lists exactly those it admits first', () => {
      const state = fc.record({
        projects: fc.array(fc.record({ running: fc.nat(4), waiting: fc.array(fc.nat(59), { maxLength: 8 }), servedAt: fc.option(fc.nat(59), { nil: undefined }) }), { minLength: 1, maxLength: 4 }),
        maxConcurrent: fc.integer({ min: 1, max: 12 }),
        maxRunningPerProject: fc.oneof(fc.nat(3), fc.constant('auto' as const)),
      });
      fc.assert(
        fc.property(state, ({ projects, maxConcurrent, maxRunningPerProject }) => {
          const invocations = projects.flatMap(({ running, waiting, servedAt }, p) => [
            ...Array.from({ length: running }, (_, i) => runningIn(`p${p}`, `r${i}`)),
            ...waiting.map((second, i) => waitingIn(`p${p}`, `w${i}`, second)),
            ...(servedAt === undefined ? [] : [inProject(`p${p}`, invocation({ phase: 'COMPLETED', podName: 'x', startedAt: `2026-01-01T00:01:${String(servedAt).padStart(2, '0')}.000Z` }, 'done'))]),
          ]);
          const input = { ...sets, invocations, maxConcurrent, maxRunningPerProject };
          const plan = admissionPlan(input);
          const admittedNow = invocations.filter((candidate) => !candidate.status && mayAdmit({ ...input, candidate }));
          for (const candidate of invocations.filter((i) => !i.status)) assert.equal(mayAdmitBy(plan, candidate, sets.admitted), mayAdmit({ ...input, candidate }));
          assert.deepEqual(plan.order.slice(0, Math.max(0, plan.free)).sort(), admittedNow.map((i) => `${i.metadata.namespace}/${i.metadata.name}`).sort());
        }),
        { numRuns: 300 },
      );
    });

    it('caps what one project runs when a per-project limit is set', () => {
      const invocations = [runningIn('a', 'r1'), waitingIn('a', 'a0', 0), waitingIn('a', 'a1', 1), waitingIn('b', 'b0', 2)];
      assert.deepEqual(admittedInOrder(invocations, 8, 2), ['b/b0', 'a/a0'], 'a runs 2 at most; the free slots stay free');
      assert.deepEqual(admittedInOrder(invocations, 8), ['b/b0', 'a/a0', 'a/a1']);
    });

    it('by default (auto) keeps a slot from a project running in all but one, once several projects have invocations', () => {
      const holding = [runningIn('b', 'r1'), runningIn('b', 'r2'), runningIn('b', 'r3')];
      const more = waitingIn('b', 'b0', 0);
      assert.equal(mayAdmit({ ...sets, candidate: more, invocations: [...holding, more], maxConcurrent: 4, maxRunningPerProject: 'auto' }), true, 'a project alone may use every slot');
      const other = waitingIn('a', 'a0', 5);
      const both = [...holding, more, other];
      assert.equal(mayAdmit({ ...sets, candidate: more, invocations: both, maxConcurrent: 4, maxRunningPerProject: 'auto' }), false, 'its fourth waits');
      assert.equal(mayAdmit({ ...sets, candidate: other, invocations: both, maxConcurrent: 4, maxRunningPerProject: 'auto' }), true, "the other project's takes the last slot");
      const finishedElsewhere = inProject('a', invocation({ phase: 'COMPLETED', podName: 'x-a1', startedAt: '2026-01-01T00:00:00.000Z' }, 'done'));
      assert.equal(mayAdmit({ ...sets, candidate: more, invocations: [...holding, more, finishedElsewhere], maxConcurrent: 4, maxRunningPerProject: 'auto' }), false, 'also when the other project has nothing waiting');
      assert.equal(perProjectCap('auto', 1, both), Infinity, 'with one slot in all there is nothing to keep');
      assert.equal(perProjectCap(2, 4, both), 2);
      assert.equal(perProjectCap(0, 4, both), Infinity);
    });

    it('reads BROWSERFN_MAX_RUNNING_INVOCATIONS_PER_PROJECT: auto unless a number is given, and a clear error for anything else', () => {
      const maxRunning = (value?: string) =>
        loadSettings({ dataDir: '/tmp/browserfn-settings-test', env: { BROWSERFN_POD_TOKEN_SECRET: 'x', BROWSERFN_API_KEY: 'k', ...(value === undefined ? {} : { BROWSERFN_MAX_RUNNING_INVOCATIONS_PER_PROJECT: value }) } }).projectQueue.maxRunning;
      assert.equal(maxRunning(), 'auto');
      assert.equal(maxRunning('auto'), 'auto');
      assert.equal(maxRunning('0'), 0);
      assert.equal(maxRunning('3'), 3);
      assert.throws(() => maxRunning('half'), /BROWSERFN_MAX_RUNNING_INVOCATIONS_PER_PROJECT must be auto or an integer from 0 to 1000, got "half"/);
    });
  });
});
