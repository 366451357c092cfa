import type { Condition } from '../cluster/objects.js';

/** Sets a condition by type, keeping lastTransitionTime when the status did not change. */
export function setCondition(conditions: Condition[] | undefined, next: Condition, now = new Date()): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const previous = i >= 0 ? list[i] : undefined;
  const merged: Condition = {
    ...next,
    lastTransitionTime: previous && previous.status === next.status ? previous.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
  if (i >= 0) list[i] = merged;
  else list.push(merged);
  return list;
}
