import assert from 'node:assert/strict';
import fc from 'fast-check';
import { deterministicUuid, functionObjectName } from '../../src/functions/naming.js';
import { capLogs, capResults, capSessionLogs, OUTCOME_LIMITS, SESSION_LOG_DROPPED_METHOD } from '../../src/schemas/report-limits.js';
import { podReportSchema, sessionRecordsReportSchema } from '../../src/schemas/reports.js';
import { Ajv } from 'ajv';
import { browserPod } from '../../src/controller/pods/templates.js';
import { verifyPodToken } from '../../src/runtime/pod-token.js';
import { POD_TOKEN_KEY, TOKEN_START_ALLOWANCE_SECONDS, podTokenSecret } from '../../src/controller/pods/token-secret.js';
import type { InvocationObject } from '../../src/schemas/resources.js';
import type { InvocationReport } from '../../src/schemas/reports.js';

const validateAgainst = (schema: object, value: unknown): boolean => new Ajv({ strict: false }).compile(schema)(value);

describe('controller policies', () => {
  it('maps any Function name to a valid, stable, distinct object name', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), (name) => {
        const objectName = functionObjectName(name);
        assert.match(objectName, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
        assert.ok(objectName.length <= 63);
        assert.equal(functionObjectName(name), objectName);
      }),
    );
    assert.notEqual(functionObjectName('Foo'), functionObjectName('foo'));
  });

  it('derives UUIDs deterministically', () => {
    const id = deterministicUuid('build-uid', 'fn');
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(deterministicUuid('build-uid', 'fn'), id);
    assert.notEqual(deterministicUuid('build-uid', 'fn2'), id);
  });

  it('keeps the newest log entries within the cap and says how many were dropped', () => {
    const entries = Array.from({ length: 1000 }, (_, i) => ({ level: 'info' as const, message: `line ${i} ${'x'.repeat(100)}`, timestamp: 't' }));
    const capped = capLogs(entries, 10_000);
    assert.ok(Buffer.byteLength(JSON.stringify(capped)) < 10_500);
    assert.match(capped[0].message, /earlier log entries dropped/);
    assert.equal(capped.at(-1), entries.at(-1));
    assert.equal(capLogs(entries.slice(0, 3), 10_000).length, 3);
  });

  it('keeps the newest session events within the cap, the first one a valid event saying how many were dropped', () => {
    const events = Array.from({ length: 1000 }, (_, i) => ({ method: 'Network.requestWillBeSent', timestamp: i, params: { url: `https://example.com/${'x'.repeat(100)}/${i}` } }));
    const capped = capSessionLogs(events, 10_000);
    assert.ok(Buffer.byteLength(JSON.stringify(capped)) < 10_500);
    assert.equal(capped[0].method, SESSION_LOG_DROPPED_METHOD);
    assert.match(JSON.stringify(capped[0].params), /earlier session events dropped/);
    assert.equal(capped.at(-1), events.at(-1));
    assert.equal(validateAgainst(sessionRecordsReportSchema, { sessionLogs: capped }), true, 'a capped session still passes the session records schema');
    const report = { kind: 'invocation', phase: 'COMPLETED', startedAt: 't', endedAt: 't', logs: [], sessionLogs: capped };
    assert.equal(validateAgainst(podReportSchema, report), true, 'and the report schema, for a pod that reports everything at once');
  });

  it('fails an invocation whose results exceed the cap instead of cutting them', () => {
    const report: InvocationReport = { kind: 'invocation', phase: 'COMPLETED', startedAt: 't', endedAt: 't', logs: [] };
    const big = capResults({ ...report, results: 'x'.repeat(OUTCOME_LIMITS.resultsBytes + 1) });
    assert.equal(big.phase, 'FAILED');
    assert.equal(big.cause?.code, 'WORKLOAD_ERROR');
    assert.equal(big.results, undefined);
    const small = capResults({ ...report, results: { ok: true } });
    assert.deepEqual(small.results, { ok: true });
  });

  it('builds a browser pod bound to its invocation, without cluster rights, with a token for its own name only', () => {
    const inv = {
      apiVersion: 'browserfn.dev/v1alpha1',
      kind: 'Invocation',
      metadata: { name: 'abc', namespace: 'proj', uid: '11111111-1111-4111-8111-111111111111' },
      spec: { functionName: 'f', functionUid: 'u', versionId: 'v', bundleConfigMap: 'b', params: {}, sessionConfig: {}, timeoutSeconds: 60, sessionId: 's' },
    } as InvocationObject;
    const pod = browserPod(inv, 1, { controlUrl: 'http://cp', podTokenSecret: 'secret', image: 'img', nodeName: 'local' });
    assert.equal(pod.metadata.name, 'abc-a1');
    assert.equal(pod.spec.automountServiceAccountToken, false);
    assert.equal(pod.spec.activeDeadlineSeconds, 120);
    assert.equal(pod.metadata.ownerReferences?.[0].uid, inv.metadata.uid);
    // The token is not in the Pod: it comes from the pod's own token Secret, bound to the pod's UID.
    const tokenEnv = pod.spec.containers[0].env!.find((e) => e.name === 'BROWSERFN_POD_TOKEN')!;
    assert.equal(tokenEnv.value, undefined);
    assert.deepEqual(tokenEnv.valueFrom, { secretKeyRef: { name: 'abc-a1-token', key: POD_TOKEN_KEY } });
    const secret = podTokenSecret({ ...pod, metadata: { ...pod.metadata, uid: 'pod-uid-1' } }, 'secret', 1_000_000);
    assert.equal(secret.metadata.ownerReferences?.[0].uid, 'pod-uid-1');
    const token = Buffer.from(secret.data![POD_TOKEN_KEY], 'base64').toString();
    const check = verifyPodToken('secret', token, { namespace: 'proj', name: 'abc-a1' }, 1_000_000);
    assert.ok(check.ok && check.claims.uid === 'pod-uid-1' && check.claims.exp === 1000 + 120 + TOKEN_START_ALLOWANCE_SECONDS);
    assert.ok(!verifyPodToken('secret', token, { namespace: 'proj', name: 'abc-a2' }, 1_000_000).ok);
    assert.ok(!verifyPodToken('secret', token, { namespace: 'proj', name: 'abc-a1' }, (1000 + 120 + TOKEN_START_ALLOWANCE_SECONDS) * 1000).ok, 'expired');
    assert.deepEqual(pod.spec.containers[0].securityContext?.capabilities, { drop: ['ALL'] });
    assert.equal(pod.spec.containers[0].env!.find((e) => e.name === 'BROWSERFN_VIEWPORT'), undefined);
    // A read-only root needs a writable /tmp of the pod's own (Chromium, Node and npm write there).
    const sidecar = browserPod(inv, 1, { controlUrl: 'http://cp', podTokenSecret: 'secret', image: 'img', nodeName: 'local', chromiumSidecar: true });
    for (const container of sidecar.spec.containers) {
      assert.equal(container.securityContext?.readOnlyRootFilesystem, true, container.name);
      const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
      assert.ok(tmp && sidecar.spec.volumes?.some((v) => v.name === tmp.name && v.emptyDir), `${container.name} has an emptyDir at /tmp`);
    }

    const sized = browserPod({ ...inv, spec: { ...inv.spec, sessionConfig: { browserSettings: { viewport: { width: 1024, height: 768 } } } } }, 2, {
      controlUrl: 'http://cp',
      podTokenSecret: 'secret',
      image: 'img',
    });
    assert.equal(sized.spec.containers[0].env!.find((e) => e.name === 'BROWSERFN_VIEWPORT')?.value, '1024x768', 'Chromium can start before the input arrives');
  });

  it('runs the Chromium build the operator chose in every browser container, with that build\'s window flags', () => {
    const inv = {
      apiVersion: 'browserfn.dev/v1alpha1',
      kind: 'Invocation',
      metadata: { name: 'abc', namespace: 'proj', uid: '11111111-1111-4111-8111-111111111111' },
      spec: { functionName: 'f', functionUid: 'u', versionId: 'v', bundleConfigMap: 'b', params: {}, sessionConfig: { browserSettings: { viewport: { width: 1024, height: 768 } } }, timeoutSeconds: 60, sessionId: 's' },
    } as InvocationObject;
    const settings = { controlUrl: 'http://cp', podTokenSecret: 'secret', image: 'img', chromiumSidecar: true };
    const shell = browserPod(inv, 1, { ...settings, chromiumPath: '/usr/lib/chromium/chromium-headless-shell' });
    for (const container of shell.spec.containers) {
      assert.equal(container.env!.find((e) => e.name === 'BROWSERFN_CHROMIUM_PATH')?.value, '/usr/lib/chromium/chromium-headless-shell', container.name);
    }
    const shellCommand = shell.spec.containers.find((c) => c.name === 'chromium')!.command!;
    assert.ok(shellCommand.includes('--window-size=1024,768'), 'the shell\'s window is its page');
    assert.ok(!shellCommand.some((arg) => arg.startsWith('--screen-info')));
    const full = browserPod(inv, 1, { ...settings, chromiumPath: '/usr/bin/chromium' });
    const fullCommand = full.spec.containers.find((c) => c.name === 'chromium')!.command!;
    assert.ok(fullCommand.includes('--window-size=1024,855'), 'the full browser\'s window is taller than its page by its frame');
    assert.equal(browserPod(inv, 1, settings).spec.containers[0].env!.find((e) => e.name === 'BROWSERFN_CHROMIUM_PATH'), undefined, 'unset: the image\'s own');
  });
});
