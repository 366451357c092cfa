// Secret values never leave the pod in logs: every occurrence, also URL- or JSON-escaped, becomes [REDACTED].
export const REDACTED = '[REDACTED]';

export type Redactor = (text: string) => string;

export function createRedactor(secrets: Record<string, string>): Redactor {
  const needles = new Set<string>();
  for (const value of Object.values(secrets)) {
    if (!value) continue;
    needles.add(value);
    needles.add(encodeURIComponent(value));
    needles.add(JSON.stringify(value).slice(1, -1));
  }
  // Longest first, so a secret containing another is replaced whole.
  const ordered = [...needles].filter((needle) => needle.length > 0).sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => {
    let result = text;
    for (const needle of ordered) if (result.includes(needle)) result = result.split(needle).join(REDACTED);
    return result;
  };
}

/** A copy of `value` with every string (keys included) redacted. */
export function redactDeep<T>(value: T, redact: Redactor): T {
  return walk(value, redact) as T;
}

function walk(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, redact));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(copy, redact(key), { value: walk(item, redact), enumerable: true, writable: true, configurable: true });
    }
    return copy;
  }
  return value;
}
