// How deeply a JSON value nests. Deep values overflow the stack of recursive code (ajv, deep merge,
// copies, the store's schema checks), so the façade and the pods refuse them before such code runs.

/** How deep `value` nests, counted without recursion, stopping once past `stopAbove`. */
export function nestingDepth(value: unknown, stopAbove: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > stopAbove) return deepest;
    for (const child of Object.values(next)) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return deepest;
}
