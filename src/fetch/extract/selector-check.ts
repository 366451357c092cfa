// A caller's selector runs on the conversion workers every project shares, so what would take them
// minutes is refused when the request arrives. `:has()` searches each candidate's whole subtree, so
// one nested inside another multiplies: on a 12 KB page of nested elements,
// div:has(div:has(div:has(span))) holds a worker for minutes. One level stays within the page's
// size times its nesting (capped at parse, see convert/dom.ts).
import { load } from 'cheerio';
import { parse, SelectorType, type Selector } from 'css-what';

/**
 * Why `selector` cannot be used, as the end of a sentence that starts with its name; undefined when
 * it can.
 */
export function selectorProblem(selector: string): string | undefined {
  try {
    // cheerio compiles it as the extractor will, so pseudo-classes it lacks are refused too.
    load('').root().find(selector);
  } catch (err) {
    return `is not a valid CSS selector: ${(err as Error).message}`;
  }
  if (parse(selector).some((compound) => nestsHas(compound, false))) {
    return 'nests :has() inside :has(), which searches the page once more for every element each level matches; use at most one level';
  }
  return undefined;
}

function nestsHas(compound: Selector[], insideHas: boolean): boolean {
  for (const part of compound) {
    if (part.type !== SelectorType.Pseudo || !Array.isArray(part.data)) continue;
    const isHas = part.name === 'has';
    if (isHas && insideHas) return true;
    if (part.data.some((inner) => nestsHas(inner, insideHas || isHas))) return true;
  }
  return false;
}
