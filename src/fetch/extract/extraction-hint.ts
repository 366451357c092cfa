// The schema keyword of our own that tells the extractor where a property is on the page:
//   "x-extract": ".price"                                   (a CSS selector)
//   "x-extract": { "selector": "meta[itemprop=price]", "attribute": "content", "regex": "([0-9.,]+)" }
// selector: CSS selector, evaluated inside the current scope (the page, or one item of an array).
// attribute: attribute to read; "text" (the default) is the element's text, "html" its inner HTML.
// regex: applied to the value; the first capturing group (or the whole match) is kept; no match = not found.
//        It runs on the linear-time engine (no backreferences or lookaround).
import { compileLinearRegExp, type LinearRegExp } from '../../schemas/linear-regexp.js';

export const HINT_KEYWORD = 'x-extract';

export interface ExtractionHint {
  selector?: string;
  attribute?: string;
  regex?: LinearRegExp;
}

/** Parses the keyword's value; throws with a message naming the property when it is malformed. */
export function parseHint(raw: unknown, where: string): ExtractionHint | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === 'string') {
    if (!raw.trim()) throw new Error(`${where}.${HINT_KEYWORD} must be a non-empty CSS selector`);
    return { selector: raw };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error(`${where}.${HINT_KEYWORD} must be a CSS selector string or an object {selector, attribute, regex}`);
  }
  const { selector, attribute, regex, ...rest } = raw as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length) throw new Error(`${where}.${HINT_KEYWORD} has unknown field "${unknown[0]}" (allowed: selector, attribute, regex)`);
  if (selector !== undefined && (typeof selector !== 'string' || !selector.trim())) throw new Error(`${where}.${HINT_KEYWORD}.selector must be a non-empty string`);
  if (attribute !== undefined && (typeof attribute !== 'string' || !attribute.trim())) throw new Error(`${where}.${HINT_KEYWORD}.attribute must be a non-empty string`);
  if (regex !== undefined && typeof regex !== 'string') throw new Error(`${where}.${HINT_KEYWORD}.regex must be a string`);
  if (selector === undefined && regex === undefined) throw new Error(`${where}.${HINT_KEYWORD} needs a selector or a regex`);
  let compiled: LinearRegExp | undefined;
  if (regex !== undefined) {
    try {
      compiled = compileLinearRegExp(regex);
    } catch (err) {
      throw new Error(`${where}.${HINT_KEYWORD}.regex: ${(err as Error).message}`);
    }
  }
  return { selector: selector as string | undefined, attribute: attribute as string | undefined, regex: compiled };
}

export function applyRegex(value: string, regex: LinearRegExp | undefined): string | undefined {
  if (!regex) return value;
  const match = regex.exec(value);
  if (!match) return undefined;
  return match[1] ?? match[0] ?? undefined;
}
