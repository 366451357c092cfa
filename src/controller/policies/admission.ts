// Admission: PENDING invocations start while fewer than the limit are running, shared fairly
// between projects. Each waiting invocation gets a turn: how many of its project's invocations
// run or wait ahead of it. Lower turns go first; on the same turn, the project served longest ago
// goes first (then the oldest invocation). So a project that holds many slots or queued a burst
// never makes a project with fewer wait, and projects with work waiting take free slots in
// rotation: round-robin across projects, first come first served within one.
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
  /** Most invocations one project may run at once (0: only the overall limit). */
  maxRunningPerProject?: number;
}

export const invocationKey = (inv: InvocationObject): string => `${inv.metadata.namespace}/${inv.metadata.name}`;

/** Whether the candidate may start now: a free slot, and no waiting invocation with an earlier turn for it. */
export function mayAdmit({ candidate, invocations, admitted, finished, maxConcurrent, maxRunningPerProject = 0 }: AdmissionInput): boolean {
  const key = invocationKey(candidate);
  if (admitted.has(key)) return true;
  const runningKeys = new Set([...invocations.filter((i) => !isTerminal(i) && !!i.status?.podName && !finished.has(invocationKey(i))).map(invocationKey), ...admitted]);
  const free = maxConcurrent - runningKeys.size;
  if (free <= 0) return false;

  const runningPerProject = new Map<string, number>();
  for (const running of runningKeys) {
    const project = running.slice(0, running.indexOf('/'));
    runningPerProject.set(project, (runningPerProject.get(project) ?? 0) + 1);
  }
  const projectCap = maxRunningPerProject > 0 ? maxRunningPerProject : Infinity;
  const waiting = invocations
    .filter((i) => !isTerminal(i) && !i.status?.podName && !admitted.has(invocationKey(i)))
    .sort((a, b) => queuedAt(a).localeCompare(queuedAt(b)) || a.metadata.name.localeCompare(b.metadata.name));
  // Not yet in the cache counts as the newest.
  if (!waiting.some((i) => i.metadata.uid === candidate.metadata.uid)) waiting.push(candidate);
  const order = fairOrder(waiting, runningPerProject, lastServed(invocations, admitted)).filter((entry) => entry.turn < projectCap);
  const position = order.findIndex((entry) => entry.invocation.metadata.uid === candidate.metadata.uid);
  return position >= 0 && position < free;
}

interface Turn {
  invocation: InvocationObject;
  project: string;
  /** The project's running invocations plus those of its own waiting ahead of this one. */
  turn: number;
}

/** `waitingByAge`: oldest first. */
function fairOrder(waitingByAge: InvocationObject[], runningPerProject: ReadonlyMap<string, number>, served: ReadonlyMap<string, string>): Turn[] {
  const ahead = new Map<string, number>();
  const turns = waitingByAge.map((invocation) => {
    const project = invocation.metadata.namespace ?? '';
    const inProject = ahead.get(project) ?? 0;
    ahead.set(project, inProject + 1);
    return { invocation, project, turn: (runningPerProject.get(project) ?? 0) + inProject };
  });
  // Stable: within one turn and one project, the age order above stays.
  return turns.sort((a, b) => a.turn - b.turn || (served.get(a.project) ?? '').localeCompare(served.get(b.project) ?? ''));
}

/** When each project last had an invocation start; one admitted just now counts as the latest. */
function lastServed(invocations: InvocationObject[], admitted: ReadonlySet<string>): Map<string, string> {
  const served = new Map<string, string>();
  for (const inv of invocations) {
    const started = inv.status?.startedAt;
    const project = inv.metadata.namespace ?? '';
    if (started && started > (served.get(project) ?? '')) served.set(project, started);
  }
  for (const key of admitted) served.set(key.slice(0, key.indexOf('/')), '\uffff');
  return served;
}
