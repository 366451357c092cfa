// Pods hold no cluster rights; they reach the control plane with a token bound to their own name.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function podToken(secret: string, namespace: string, podName: string): string {
  return createHmac('sha256', secret).update(`${namespace}/${podName}`).digest('base64url');
}

export function verifyPodToken(secret: string, namespace: string, podName: string, token: string): boolean {
  const expected = Buffer.from(podToken(secret, namespace, podName));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
