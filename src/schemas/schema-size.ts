// How large a user's JSON Schema may be. Compiling one runs on the API's thread and costs time in
// proportion to its subschemas ($refs are compiled once, not copied where they are used), so a
// schema with more of them than any real one is refused instead of compiled.
export const MAX_SCHEMA_NODES = 1000;
/**
 * Values in its lists (`enum`, `required`, `type`…) all told: checking a schema against the
 * meta-schema compares the values of an `enum` pairwise, so 100,000 of them held the thread for seconds.
 */
export const MAX_SCHEMA_LIST_ITEMS = 5000;

export class SchemaTooComplexError extends Error {}

/** Undefined when the schema is small enough to compile; the error saying what to change otherwise. */
export function schemaTooComplex(schema: unknown): SchemaTooComplexError | undefined {
  let nodes = 0;
  let listItems = 0;
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next) && (listItems += next.length) > MAX_SCHEMA_LIST_ITEMS) {
      return new SchemaTooComplexError(`its lists (enum, required, …) hold more than ${MAX_SCHEMA_LIST_ITEMS} values in all; shorten them, or check long lists of values after extraction`);
    }
    if (!Array.isArray(next) && ++nodes > MAX_SCHEMA_NODES) {
      return new SchemaTooComplexError(`it holds more than ${MAX_SCHEMA_NODES} subschemas; reuse definitions through $ref or split it`);
    }
    for (const child of Object.values(next)) if (typeof child === 'object' && child !== null) pending.push(child);
  }
  return undefined;
}
