// Retention decisions as pure functions over (objects, now): when a finished Invocation or Build
// leaves the cluster store, which archived records the sweep deletes, which version bundles go.
// See docs/retention.md.

export interface FinishedCandidate {
  /** COMPLETED or FAILED. */
  terminal: boolean;
  endedAt?: string;
  /** Stands in for a terminal object without endedAt. */
  createdAt?: string;
}

export type RetentionStep =
  | { kind: 'keep' }
  | { kind: 'wait'; afterMs: number }
  /** Write the archive, verify it, then delete the object (its dependents follow). */
  | { kind: 'archive' };

/** A finished object stays `ttlMs` after its end; a running one stays until it ends. */
export function finishedObjectStep(candidate: FinishedCandidate, nowMs: number, ttlMs: number): RetentionStep {
  if (!candidate.terminal) return { kind: 'keep' };
  const ended = Date.parse(candidate.endedAt ?? candidate.createdAt ?? '');
  if (!Number.isFinite(ended)) return { kind: 'archive' };
  const due = ended + ttlMs;
  return nowMs >= due ? { kind: 'archive' } : { kind: 'wait', afterMs: due - nowMs };
}

/**
 * Archived objects the sweep deletes: those written at least `retentionMs` ago. An object is
 * written no earlier than its end (plus the TTL), so none goes before its retention ends; reads
 * apply the exact cut-off from the end time themselves.
 */
export function expiredArchiveKeys(entries: { key: string; lastModifiedMs: number }[], nowMs: number, retentionMs: number): string[] {
  return entries.filter((e) => e.lastModifiedMs + retentionMs <= nowMs).map((e) => e.key);
}

export interface VersionBundleRef {
  functionUid: string;
  number: number;
  /** The bundle this version runs. */
  bundle: string;
}

/**
 * Bundles to prune: stored ones run only by versions beyond each Function's newest `keep`, and by no
 * bundle in use (a Function's current version, a queued or running invocation). Shared bundles
 * (one build, several Functions) stay while any Function keeps a version of them.
 */
export function bundlesToPrune(versions: VersionBundleRef[], inUse: ReadonlySet<string>, existing: ReadonlySet<string>, keep: number): string[] {
  const byFunction = new Map<string, VersionBundleRef[]>();
  for (const v of versions) byFunction.set(v.functionUid, [...(byFunction.get(v.functionUid) ?? []), v]);
  const kept = new Set(inUse);
  const old = new Set<string>();
  for (const list of byFunction.values()) {
    const newestFirst = [...list].sort((a, b) => b.number - a.number);
    newestFirst.slice(0, keep).forEach((v) => kept.add(v.bundle));
    newestFirst.slice(keep).forEach((v) => old.add(v.bundle));
  }
  return [...old].filter((bundle) => existing.has(bundle) && !kept.has(bundle)).sort();
}
