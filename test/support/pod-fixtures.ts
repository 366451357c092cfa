// An invocation running in its first pod, and the pod template settings, for policy tests of the
// pods the controller makes (no cluster).
import type { InvocationObject } from '../../src/schemas/resources.js';

export const T0 = Date.parse('2026-01-01T00:00:00.000Z');

export const runningInvocation = {
  apiVersion: 'browserfn.dev/v1alpha1',
  kind: 'Invocation',
  metadata: { name: 'inv-1', namespace: 'p', uid: 'uid-inv-1', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { functionName: 'f', functionUid: 'fu', versionId: 'v', bundleConfigMap: 'b', params: {}, sessionConfig: {}, timeoutSeconds: 60, sessionId: 's' },
  status: { phase: 'RUNNING', podName: 'inv-1-a1', attempts: 1, startedAt: '2026-01-01T00:00:00.000Z' },
} as InvocationObject;

export const podTemplates = { controlUrl: 'http://cp', podTokenSecret: 'secret', image: 'img', nodeName: 'local' };
