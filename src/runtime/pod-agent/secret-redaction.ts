// Secret values never leave the pod in logs, session logs, failure messages or results. A value
// is found however it was written: as is, JSON-escaped (also twice), percent- or form-encoded (any
// mix, any hex case), or in base64/base64url at any alignment (`Authorization: Basic …`). Where a
// text was cut by truncation (its start, its end, or just before a `…` marker), a long enough
// prefix or suffix of a value at that edge is redacted too. See docs/secrets.md for the minimum
// lengths and what is not covered.
import { decodedViews, type View } from './redaction/decoded-views.js';
import { MIN_DERIVED_BYTES, prefixBefore, secretForms, suffixAtStart, type SecretForm } from './redaction/secret-forms.js';

export const REDACTED = '[REDACTED]';
export { MIN_DERIVED_BYTES, MIN_SECRET_CHARS } from './redaction/secret-forms.js';

export type Redactor = (text: string) => string;

/** `…`, which every truncation marker of the pod agent starts with: the text before it may be a cut value. */
const ELLIPSIS = Buffer.from('…', 'utf8');

type Span = [from: number, to: number];

export function createRedactor(secrets: Record<string, string>): Redactor {
  const forms = secretForms(Object.values(secrets));
  if (forms.length === 0) return (text) => text;
  return (text) => {
    if (text.length === 0) return text;
    const spans: Span[] = [];
    for (const view of decodedViews(text)) for (const form of forms) findIn(view, form, spans);
    return spans.length === 0 ? text : replaceSpans(text, spans);
  };
}

/** A copy of `value` with every string (keys included) redacted. */
export function redactDeep<T>(value: T, redact: Redactor): T {
  return walk(value, redact) as T;
}

function findIn(view: View, form: SecretForm, spans: Span[]): void {
  const { bytes } = view;
  const span = (start: number, end: number) => spans.push([view.from[start], view.to[end - 1]]);
  // Non-overlapping, so a long repetitive value over a repetitive text stays linear.
  for (let at = bytes.indexOf(form.bytes); at >= 0; at = bytes.indexOf(form.bytes, at + form.bytes.length)) span(at, at + form.bytes.length);
  // Cut edges: the start and end of the text, and just before each `…`.
  const head = suffixAtStart(bytes, form);
  if (head >= MIN_DERIVED_BYTES) span(0, head);
  for (const end of cutEnds(bytes)) {
    const tail = prefixBefore(bytes, end, form);
    if (tail >= MIN_DERIVED_BYTES) span(end - tail, end);
  }
}

function cutEnds(bytes: Buffer): number[] {
  const ends = [bytes.length];
  for (let at = bytes.indexOf(ELLIPSIS); at >= 0; at = bytes.indexOf(ELLIPSIS, at + 1)) ends.push(at);
  return ends;
}

function replaceSpans(text: string, spans: Span[]): string {
  spans.sort((a, b) => a[0] - b[0]);
  let result = '';
  let copied = 0;
  let i = 0;
  while (i < spans.length) {
    const start = spans[i][0];
    let end = spans[i][1];
    for (i++; i < spans.length && spans[i][0] <= end; i++) end = Math.max(end, spans[i][1]);
    result += text.slice(copied, start) + REDACTED;
    copied = end;
  }
  return result + text.slice(copied);
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
