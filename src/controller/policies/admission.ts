// Admission: PENDING invocations start while fewer than the limit are running, shared fairly
// between projects. Each waiting invocation gets a turn: how many of its project's invocations
// run or wait ahead of it. Lower turns go first; on the same turn, the project served longest ago
// goes first (then the oldest invocation). So a project that holds many slots or queued a burst
// never makes a project with fewer wait, and projects with work waiting take free slots in
// rotation: round-robin across projects, first come first served within one. Turns order what
// waits, not what runs: invocations that never end would keep their slots to their timeout, so by
// default (`auto`), once several projects have invocations, no project may run in every slot.
import type { InvocationObject } from '../../schemas/resources.js';
import { isTerminal, isWaiting, queuedAt } from '../../functions/invocations.js';

export interface AdmissionInput {
  candidate: InvocationObject;
  /** Every invocation the cache knows of. */
  invocations: InvocationObject[];
  /** Invocations admitted by this process whose pods the cache may not show yet. */
  admitted: ReadonlySet<string>;
  /** Invocations just finished by this process, which the cache may still show as running. */
  finished: ReadonlySet<string>;
  maxConcurrent: number;
  /** Most invocations one project may run at once (0: only the overall limit); `auto`: see perProjectCap. */
  maxRunningPerProject?: MaxRunningPerProject;
}

export type MaxRunningPerProject = number | 'auto';

export const invocationKey = (inv: InvocationObject): string => `${inv.metadata.namespace}/${inv.metadata.name}`;

/**
 * The admission order of everything waiting, worked out once for a state of the cache: with
 * thousands queued, each waiting invocation's look at it is then a lookup, not a sort.
 */
export interface AdmissionPlan {
  /** Slots free now. */
  free: number;
  /** The keys (namespace/name) of the waiting invocations in admission order, over-cap ones left out. */
  order: string[];
  /** Each waiting invocation's place in the order (by uid); one over its project's cap has none. */
  position: ReadonlyMap<string, number>;
  /** Everything known waiting (by uid), placed or not. */
  waiting: ReadonlySet<string>;
}

export function admissionPlan({ invocations, admitted, finished, maxConcurrent, maxRunningPerProject = 0 }: Omit<AdmissionInput, 'candidate'>, extra?: InvocationObject): AdmissionPlan {
  const runningKeys = new Set(admitted);
  for (const i of invocations) if (!isTerminal(i) && !!i.status?.podName && !finished.has(invocationKey(i))) runningKeys.add(invocationKey(i));
  const runningPerProject = new Map<string, number>();
  for (const running of runningKeys) {
    const project = running.slice(0, running.indexOf('/'));
    runningPerProject.set(project, (runningPerProject.get(project) ?? 0) + 1);
  }
  const projectCap = perProjectCap(maxRunningPerProject, maxConcurrent, invocations);
  const waiting = invocations
    .filter((i) => isWaiting(i) && !admitted.has(invocationKey(i)))
    .map((invocation) => ({ invocation, queued: queuedAt(invocation) }))
    .sort((a, b) => compare(a.queued, b.queued) || compare(a.invocation.metadata.name, b.invocation.metadata.name))
    .map((entry) => entry.invocation);
  // Not yet in the cache counts as the newest.
  if (extra && !waiting.some((i) => i.metadata.uid === extra.metadata.uid)) waiting.push(extra);
  const order = fairOrder(waiting, runningPerProject, lastServed(invocations, admitted)).filter((entry) => entry.turn < projectCap);
  return {
    free: maxConcurrent - runningKeys.size,
    order: order.map((entry) => invocationKey(entry.invocation)),
    position: new Map(order.map((entry, index) => [entry.invocation.metadata.uid ?? '', index])),
    waiting: new Set(waiting.map((i) => i.metadata.uid ?? '')),
  };
}

/** The per-project limit in force: `auto` is one fewer than the overall limit once invocations of several projects are known, else none. */
export function perProjectCap(setting: MaxRunningPerProject, maxConcurrent: number, invocations: readonly InvocationObject[]): number {
  if (setting !== 'auto') return setting > 0 ? setting : Infinity;
  const first = invocations[0]?.metadata.namespace;
  const several = invocations.some((i) => i.metadata.namespace !== first);
  return several && maxConcurrent > 1 ? maxConcurrent - 1 : Infinity;
}

/** Whether the candidate may start now: a free slot, and no waiting invocation with an earlier turn for it. */
export function mayAdmit(input: AdmissionInput): boolean {
  return mayAdmitBy(admissionPlan(input, input.candidate), input.candidate, input.admitted) ?? false;
}

/** As mayAdmit, by a plan made for the same state; undefined for a candidate the plan does not know of (it needs a plan of its own). */
export function mayAdmitBy(plan: AdmissionPlan, candidate: InvocationObject, admitted: ReadonlySet<string>): boolean | undefined {
  if (admitted.has(invocationKey(candidate))) return true;
  if (plan.free <= 0) return false;
  if (!plan.waiting.has(candidate.metadata.uid ?? '')) return undefined;
  const position = plan.position.get(candidate.metadata.uid ?? '');
  return position !== undefined && position < plan.free;
}

/** Ordinal order (timestamps and names are ASCII); localeCompare is many times slower on long queues. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

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
  return turns.sort((a, b) => a.turn - b.turn || compare(served.get(a.project) ?? '', served.get(b.project) ?? ''));
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
