// Admission: PENDING invocations start oldest first, while fewer than the limit are running.
import type { InvocationObject } from '../../schemas/resources.js';
import { isTerminal, queuedAt } from '../../functions/invocations.js';

export interface AdmissionInput {
  candidate: InvocationObject;
  /** Every invocation the cache knows of. */
  invocations: InvocationObject[];
  /** Invocations admitted by this process whose pods the cache may not show yet. */
  admitted: ReadonlySet<string>;
  /** Invocations just finished by this process, which the cache may still show as running. */
  finished: ReadonlySet<string>;
  maxConcurrent: number;
}

export const invocationKey = (inv: InvocationObject): string => `${inv.metadata.namespace}/${inv.metadata.name}`;

/** Whether the candidate may start now: a free slot, and no older waiting invocation ahead of it for that slot. */
export function mayAdmit({ candidate, invocations, admitted, finished, maxConcurrent }: AdmissionInput): boolean {
  const key = invocationKey(candidate);
  if (admitted.has(key)) return true;
  const running = invocations.filter((i) => !isTerminal(i) && !!i.status?.podName && !finished.has(invocationKey(i))).map(invocationKey);
  const free = maxConcurrent - new Set([...running, ...admitted]).size;
  if (free <= 0) return false;
  const waiting = invocations
    .filter((i) => !isTerminal(i) && !i.status?.podName && !admitted.has(invocationKey(i)))
    .sort((a, b) => queuedAt(a).localeCompare(queuedAt(b)) || a.metadata.name.localeCompare(b.metadata.name));
  const position = waiting.findIndex((i) => i.metadata.uid === candidate.metadata.uid);
  // Not yet in the cache counts as newest; older ones go first.
  return position >= 0 ? position < free : waiting.length < free;
}
