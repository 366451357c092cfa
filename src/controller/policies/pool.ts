// Warm pools, decided from what was observed: which members an invocation may claim, and how a
// pool gets to the number of idle members demand calls for. Pure, so every rule is tested with a
// fake clock.
import type { Condition } from '../../cluster/objects.js';
import { Annotations, Labels, type BrowserPoolObject, type BrowserPoolStatus, type InvocationObject, type MemberFailures } from '../../schemas/resources.js';
import { isPodTerminal, type PodObject } from '../../schemas/pod.js';
import { launchShapeOf, sameLaunch } from '../../schemas/launch-shape.js';
import { isoAt } from '../runtime/clock.js';
import { DEFAULT_BROWSER_CPU_REQUEST } from '../pods/templates.js';
import { DEFAULT_IDLE_SECONDS, DEFAULT_MAX_AGE_SECONDS, isIdleMember, memberCreatedAt, poolLaunchHash } from '../pods/pool-member.js';
import { isWaiting, queuedAt } from '../../functions/invocations.js';
import { cpuMillis, memoryBytes } from '../../schemas/quantities.js';

/** The arrival rate is measured over this window. */
export const DEMAND_WINDOW_MS = 10_000;
/** What a member takes from creation to ready, until the pool has members that show it. */
export const DEFAULT_MEMBER_START_MS = 3000;
/** A member not ready this long after it was made is replaced. */
export const MEMBER_START_LIMIT_MS = 120_000;
/** Members above demand stay at least this long after they were made (zero demand removes them at once). */
export const SCALE_DOWN_DELAY_MS = 60_000;
/**
 * A member claimed this recently is starting its handler: replacements wait until it has, or has
 * ended, unless invocations wait for a member, so a browser start does not take the node's CPU
 * from the invocation a warm start is meant to speed up.
 */
export const CLAIM_START_MS = 3000;
/** How often a pool held back by the memory cap looks again. */
export const CAPPED_RECHECK_MS = 5000;
/**
 * A node whose CPUs were this busy over the last second has none to spare for members ahead of
 * demand: at saturation a member made ahead started beside the one an invocation had just claimed
 * and slowed it, and the pool's p95 came out worse than no pool's.
 */
export const CPU_BUSY_FRACTION = 0.9;
/** How often a pool held back by a busy CPU looks again. */
export const CPU_BUSY_RECHECK_MS = 1000;
/**
 * Members that may end before they are claimed (evicted for their disk, out of memory, never
 * ready) before the pool waits between the ones it makes ahead of demand: a member whose
 * preloaded code breaks its limits while it waits was otherwise replaced by one doing the same,
 * for as long as the pool was in use. The wait starts at MEMBER_BACKOFF_MS and doubles each time.
 */
export const MEMBER_FAILURES_BEFORE_BACKOFF = 3;
export const MEMBER_BACKOFF_MS = 10_000;
export const MAX_MEMBER_BACKOFF_MS = 300_000;
/**
 * Failures this long past, with none since, no longer count. A claim does not end a run: a
 * project whose members break their limits while they wait could otherwise keep its pool
 * replacing them at full speed by invoking now and then (a probe did, every 8 s).
 */
export const MEMBER_FAILURES_FORGOTTEN_MS = 3_600_000;
/** Pool names become label values (63 characters) and pod name prefixes. */
export const MAX_POOL_NAME_LENGTH = 54;
/** What a member reserves when its pool names no memory request. */
export const DEFAULT_MEMBER_MEMORY = '512Mi';

const ageOf = (pod: PodObject, now: number): number => now - memberCreatedAt(pod);
const isReady = (pod: PodObject): boolean => pod.status?.phase === 'Running' && !!pod.metadata.annotations?.[Annotations.memberReady];
const maxAgeMs = (pool: BrowserPoolObject): number => (pool.spec.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS) * 1000;

/**
 * Pools in the invocation's namespace whose members launch the way the invocation asks, by name;
 * a pool whose members load code ahead only for invocations of that code.
 */
export function poolsFor(inv: InvocationObject, pools: BrowserPoolObject[]): BrowserPoolObject[] {
  const shape = launchShapeOf(inv.spec.sessionConfig);
  const servable = (pool: BrowserPoolObject) => pool.spec.preloadArtifact === undefined || pool.spec.preloadArtifact === inv.spec.bundleConfigMap;
  return pools
    .filter((pool) => pool.metadata.namespace === inv.metadata.namespace && !pool.metadata.deletionTimestamp && sameLaunch(pool.spec.launch ?? {}, shape) && servable(pool))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

/**
 * The members `inv` may claim, in order: ready ones first, then ones still starting (claimed, a
 * starting member runs the invocation as soon as it is up, which is never later than a cold pod
 * started now), each group closest to its age limit first. All idle, started with their pool's
 * current launch, not ending, not past the age limit or the start limit.
 */
export function claimCandidates(inv: InvocationObject, pools: BrowserPoolObject[], members: PodObject[], now: number): PodObject[] {
  const ready: PodObject[] = [];
  const starting: PodObject[] = [];
  for (const pool of poolsFor(inv, pools)) {
    const hash = poolLaunchHash(pool);
    for (const pod of members) {
      const labels = pod.metadata.labels ?? {};
      if (pod.metadata.namespace !== pool.metadata.namespace || labels[Labels.pool] !== pool.metadata.name) continue;
      if (labels[Labels.launchHash] !== hash || !isIdleMember(pod) || isPodTerminal(pod) || pod.metadata.deletionTimestamp) continue;
      const age = ageOf(pod, now);
      if (age >= maxAgeMs(pool)) continue;
      if (isReady(pod)) ready.push(pod);
      else if (age < MEMBER_START_LIMIT_MS) starting.push(pod);
    }
  }
  return [...ready.sort(oldestFirst), ...starting.sort(oldestFirst)];
}

/** A member already claimed for `inv` (a claim whose status update was lost): adopted, never claimed twice. */
export function existingClaim(inv: InvocationObject, members: PodObject[]): PodObject | undefined {
  return members.find(
    (pod) => pod.metadata.namespace === inv.metadata.namespace && pod.metadata.labels?.[Labels.invocationName] === inv.metadata.name && !pod.metadata.deletionTimestamp && !isPodTerminal(pod),
  );
}

export interface PoolObservation {
  pool: BrowserPoolObject;
  /** Pods labelled with this pool (idle and claimed). */
  members: PodObject[];
  /** Invocations of the pool's namespace. */
  invocations: InvocationObject[];
  now: number;
  /** How many more idle members all pools together may add (the node's memory cap), or Infinity. */
  room: number;
  /** The share of the node's CPU time that was busy over the last second (`serve` only: Kubernetes schedules by requests). */
  cpuBusyFraction?: number;
  /** The artifact spec.preloadArtifact names is not in the namespace: members could not load it. */
  missingArtifact?: boolean;
}

export interface PoolPlan {
  /** Idle members to make. */
  create: number;
  /** Idle members to delete, each with why. */
  remove: { pod: PodObject; why: string }[];
  status: Omit<BrowserPoolStatus, 'conditions' | 'observedGeneration'>;
  ready: Omit<Condition, 'type' | 'lastTransitionTime'>;
  /** When to look again even if nothing changes (ages, idleness, demand leaving its window). */
  recheckAfterMs: number;
}

export function planPool({ pool, members, invocations, now, room, cpuBusyFraction = 0, missingArtifact = false }: PoolObservation): PoolPlan {
  const problem = specProblem(pool, missingArtifact);
  const cpuBusy = cpuBusyFraction >= CPU_BUSY_FRACTION;
  const matching = invocations.filter((inv) => poolsFor(inv, [pool]).length > 0);
  const arrivals = matching.map((inv) => Date.parse(queuedAt(inv))).filter((t) => !Number.isNaN(t));
  const lastActive = Math.max(Date.parse(pool.status?.lastActiveTime ?? '') || 0, Date.parse(pool.metadata.creationTimestamp ?? '') || 0, ...arrivals);
  const idleMs = (pool.spec.idleSeconds ?? DEFAULT_IDLE_SECONDS) * 1000;
  const active = idleMs === 0 || now - lastActive < idleMs;
  const waiting = matching.filter(isWaiting).length;
  const recent = arrivals.filter((t) => now - t < DEMAND_WINDOW_MS);
  // Little's law: the members that arrivals at this rate claim while a replacement starts.
  const arriving = Math.ceil((recent.length / DEMAND_WINDOW_MS) * memberStartMs(members));
  const desired = problem || !active ? 0 : Math.min(Math.max(pool.spec.minIdle, waiting + arriving), Math.max(pool.spec.maxIdle, pool.spec.minIdle));

  const hash = poolLaunchHash(pool);
  const remove: PoolPlan['remove'] = [];
  const ready: PodObject[] = [];
  const starting: PodObject[] = [];
  const failed: { pod: PodObject; why: string }[] = [];
  let claimed = 0;
  let startingHandlerUntil = 0;
  const rechecks: number[] = [];
  for (const pod of members) {
    if (pod.metadata.deletionTimestamp) continue;
    if (!isIdleMember(pod)) {
      if (isPodTerminal(pod)) continue;
      claimed += 1;
      const claimedAt = Date.parse(pod.metadata.annotations?.[Annotations.claimedAt] ?? '');
      if (now - claimedAt < CLAIM_START_MS) startingHandlerUntil = Math.max(startingHandlerUntil, claimedAt + CLAIM_START_MS);
      continue;
    }
    const age = ageOf(pod, now);
    if (isPodTerminal(pod)) failed.push({ pod, why: `it ended (${pod.status?.reason ?? pod.status?.phase}) before it was claimed` });
    else if (pod.metadata.labels?.[Labels.launchHash] !== hash) remove.push({ pod, why: 'the pool\'s launch or resources changed' });
    else if (age >= maxAgeMs(pool)) remove.push({ pod, why: `it is older than maxAgeSeconds (${maxAgeMs(pool) / 1000})` });
    else if (isReady(pod)) {
      ready.push(pod);
      rechecks.push(maxAgeMs(pool) - age);
    } else if (age >= MEMBER_START_LIMIT_MS) failed.push({ pod, why: `it was not ready within ${MEMBER_START_LIMIT_MS / 1000} s` });
    else {
      starting.push(pod);
      rechecks.push(MEMBER_START_LIMIT_MS - age);
    }
  }
  remove.push(...failed);
  const memberFailures = countMemberFailures(pool.status?.memberFailures, failed, now);
  const backoffUntil = memberFailures ? memberBackoffUntil(memberFailures) : 0;
  const backingOff = backoffUntil > now;
  const live = ready.length + starting.length;
  // Members beyond those invocations wait for are made ahead of demand: none while the node's CPU is
  // busy or members keep ending unclaimed, and none at all while a claimed member starts its handler and nothing waits.
  const handlerStarting = waiting === 0 && startingHandlerUntil > now;
  const wanted = handlerStarting || cpuBusy || backingOff ? Math.min(desired, waiting) : desired;
  const create = Math.max(0, Math.min(wanted - live, room));
  if (desired > Math.max(live, wanted)) {
    if (handlerStarting) rechecks.push(startingHandlerUntil - now);
    if (cpuBusy) rechecks.push(CPU_BUSY_RECHECK_MS);
    if (backingOff) rechecks.push(backoffUntil - now);
  }
  if (live > desired) {
    // Starting members go first (nothing waits for them yet), then the oldest ready ones. Above
    // zero, only members past the scale-down delay go, so a burst's extra members are not made and
    // dropped over and over.
    const removable = [...starting.sort(newestFirst), ...ready.sort(oldestFirst)].filter((pod) => desired === 0 || ageOf(pod, now) >= SCALE_DOWN_DELAY_MS);
    for (const pod of removable.slice(0, live - desired)) remove.push({ pod, why: desired === 0 ? 'the pool is scaling to zero' : 'demand fell' });
    const kept = [...starting, ...ready].filter((pod) => ageOf(pod, now) < SCALE_DOWN_DELAY_MS);
    if (desired > 0 && removable.length < live - desired) for (const pod of kept) rechecks.push(SCALE_DOWN_DELAY_MS - ageOf(pod, now));
  }
  if (active && idleMs > 0 && desired > 0) rechecks.push(lastActive + idleMs - now);
  for (const t of recent) rechecks.push(t + DEMAND_WINDOW_MS - now);
  // Held back by the memory cap: room may free up in another pool, which does not tell this one.
  const capped = create < wanted - live;
  if (capped) rechecks.push(CAPPED_RECHECK_MS);

  return {
    create,
    remove,
    status: { ready: ready.length, starting: starting.length, claimed, desired, lastActiveTime: isoAt(lastActive), ...(memberFailures ? { memberFailures } : {}) },
    ready: readiness(problem, desired, ready.length, capped ? 'memory' : desired <= Math.max(live, wanted) ? undefined : backingOff ? { failures: memberFailures!, until: backoffUntil } : cpuBusy ? 'cpu' : undefined),
    recheckAfterMs: Math.max(1000, Math.min(60_000, ...rechecks.filter((ms) => ms > 0))),
  };
}

/** The median time the pool's members took from creation to ready (the default before any was). */
export function memberStartMs(members: PodObject[]): number {
  const took = members
    .map((pod) => Date.parse(pod.metadata.annotations?.[Annotations.memberReady] ?? '') - memberCreatedAt(pod))
    .filter((ms) => ms >= 0)
    .sort((a, b) => a - b);
  return took.length > 0 ? took[Math.floor(took.length / 2)] : DEFAULT_MEMBER_START_MS;
}

/**
 * The pool's run of members that ended unclaimed: the previous run (forgotten an hour after its
 * last failure), plus the members `failed` now (the reconciler no longer shows one whose deletion
 * it asked for, so none is counted twice).
 */
function countMemberFailures(previous: MemberFailures | undefined, failed: { pod: PodObject; why: string }[], now: number): MemberFailures | undefined {
  const run = previous && now - Date.parse(previous.lastTime) < MEMBER_FAILURES_FORGOTTEN_MS ? previous : undefined;
  const last = failed.at(-1);
  if (!last) return run;
  return { count: (run?.count ?? 0) + failed.length, lastTime: isoAt(now), lastReason: last.why };
}

/** Until when the pool makes members only for invocations that wait; before it has one to wait for, the past. */
function memberBackoffUntil(failures: MemberFailures): number {
  if (failures.count < MEMBER_FAILURES_BEFORE_BACKOFF) return 0;
  const wait = Math.min(MAX_MEMBER_BACKOFF_MS, MEMBER_BACKOFF_MS * 2 ** Math.min(30, failures.count - MEMBER_FAILURES_BEFORE_BACKOFF));
  return Date.parse(failures.lastTime) + wait;
}

type HeldBackBy = 'memory' | 'cpu' | { failures: MemberFailures; until: number } | undefined;

function readiness(problem: string | undefined, desired: number, ready: number, heldBackBy: HeldBackBy): PoolPlan['ready'] {
  if (problem) return { status: 'False', reason: 'InvalidSpec', message: problem };
  if (desired === 0) return { status: 'True', reason: 'ScaledToZero', message: 'No idle members wanted: invocations start cold until one arrives' };
  if (ready >= desired) return { status: 'True', reason: 'Ready', message: `${ready} idle member(s) ready` };
  if (heldBackBy === 'memory') return { status: 'False', reason: 'NoRoom', message: `${ready} of ${desired} idle member(s) ready; the node's warm pool memory cap (BROWSERFN_WARM_POOL_MEMORY_MB) allows no more` };
  if (typeof heldBackBy === 'object') {
    const { failures, until } = heldBackBy;
    return {
      status: 'False',
      reason: 'MembersFailing',
      message: `${ready} of ${desired} idle member(s) ready; ${failures.count} members ended before they were claimed within an hour of each other (the last: ${failures.lastReason}), so the next is made at ${isoAt(until)}, or at once for an invocation that waits`,
    };
  }
  if (heldBackBy === 'cpu') return { status: 'False', reason: 'CpuBusy', message: `${ready} of ${desired} idle member(s) ready; the node's CPUs are busy, so members are made only for invocations that wait until some are free` };
  return { status: 'False', reason: 'Starting', message: `${ready} of ${desired} idle member(s) ready` };
}

function specProblem(pool: BrowserPoolObject, missingArtifact: boolean): string | undefined {
  if (pool.metadata.name.length > MAX_POOL_NAME_LENGTH) return `The pool's name is longer than ${MAX_POOL_NAME_LENGTH} characters; its members could not be named after it`;
  if (pool.spec.maxIdle < pool.spec.minIdle) return `spec.maxIdle (${pool.spec.maxIdle}) is less than spec.minIdle (${pool.spec.minIdle}); make it at least as large`;
  const { requests, limits } = pool.spec.resources ?? {};
  if (limits?.cpu && cpuMillis(limits.cpu) < cpuMillis(requests?.cpu ?? DEFAULT_BROWSER_CPU_REQUEST)) {
    return `spec.resources.limits.cpu (${limits.cpu}) is less than the CPU each member requests (${requests?.cpu ?? DEFAULT_BROWSER_CPU_REQUEST}); raise the limit or lower spec.resources.requests.cpu`;
  }
  if (missingArtifact) return `spec.preloadArtifact names ${pool.spec.preloadArtifact}, which is not an artifact of this namespace; name the bundleConfigMap of one of its Function versions, or remove it`;
  return undefined;
}

const newestFirst = (a: PodObject, b: PodObject): number => memberCreatedAt(b) - memberCreatedAt(a);
const oldestFirst = (a: PodObject, b: PodObject): number => -newestFirst(a, b);

/** Memory one member of the pool reserves. */
export const memberMemoryBytes = (pool: BrowserPoolObject): number => memoryBytes(pool.spec.resources?.requests?.memory ?? DEFAULT_MEMBER_MEMORY);

/**
 * How many more members of `pool` fit under the cap, given every idle member on the node (each
 * counted with its own pool's request). A cap of 0 means no cap of ours.
 */
export function roomUnderCap(capBytes: number, pool: BrowserPoolObject, idleMemberBytes: number[]): number {
  if (capBytes <= 0) return Infinity;
  const used = idleMemberBytes.reduce((sum, bytes) => sum + bytes, 0);
  return Math.max(0, Math.floor((capBytes - used) / memberMemoryBytes(pool)));
}
