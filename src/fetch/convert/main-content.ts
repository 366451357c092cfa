// Finds the main content of a page:
//  1. drop what is never content (scripts, form controls, short <noscript> notices),
//  2. drop hidden elements and page chrome (navigation, headers, footers, banners, dialogs),
//     unless they hold a big share of the text (anti-flicker wrappers, "has-sidebar" layouts),
//  3. give every text block a probability of being content (content-model.ts),
//  4. pick the element whose text maximises the expected F0.5 (precision weighs more) against
//     that estimate,
//  5. inside it, drop link-only fragments ("Reply", "Share", tag chips).
// When nothing reads like content (a page of links, or almost empty) the cleaned body is returned.
import { bodyOf, childrenOf, isElement, walk, removeNodes, type AnyNode, type Document, type Element } from './dom.js';
import { chromeKind, isHidden, isJunk, isMainLandmark } from './boilerplate.js';
import { collectTextBlocks } from './text-blocks.js';
import { isBlockTag } from './markdown-writer.js';
import { BLOCK_WEIGHTS, contentProbability } from './content-model.js';

export interface Tuning {
  /** Chrome elements holding more than this share of the page's text are kept (they wrap content). */
  chromeGuardShare: number;
  /** Weights of the block model (content-model.ts). */
  blockWeights: readonly number[];
  /** F-beta the container choice maximises: below 1 favours precision. */
  beta: number;
}

export const DEFAULT_TUNING: Tuning = { chromeGuardShare: 0.4, blockWeights: BLOCK_WEIGHTS, beta: 0.5 };

export interface Stats {
  /** Non-space characters of text. */
  chars: number;
  /** Of which inside links. */
  linkChars: number;
  /** Expected content characters: Σ P(content) · chars over the blocks inside. */
  weight: number;
}

export interface MainContent {
  roots: AnyNode[];
  /** True when no main content stood out and the cleaned body is returned. */
  wholePage: boolean;
}

export interface CleaningOptions {
  /** Keep elements hidden only by an inline display:none/visibility:hidden (a script shows them later). */
  keepStyleHidden?: boolean;
}

/** Steps 1 and 2: the body without what is never content and without page chrome. */
export function cleanPage(doc: Document, tuning: Tuning = DEFAULT_TUNING, options: CleaningOptions = {}): Element | Document {
  const body = bodyOf(doc);
  removeNever(body);
  removeHiddenAndChrome(body, measure(body, tuning, false), tuning, options.keepStyleHidden ?? false);
  return body;
}

export function extractMainContent(doc: Document, tuning: Tuning = DEFAULT_TUNING, options: CleaningOptions = {}): MainContent {
  const body = cleanPage(doc, tuning, options);
  const stats = measure(body, tuning);
  const total = stats.get(body)?.weight ?? 0;
  if (total < 40) return { roots: [body], wholePage: true };

  let container: Element | Document = body;
  let bestScore = -1;
  walk(body, (node) => {
    if (node !== body && !isElement(node)) return false;
    const s = stats.get(node);
    if (!s || s.weight === 0) return false;
    const b2 = tuning.beta * tuning.beta;
    const score = ((1 + b2) * s.weight) / (s.chars + b2 * total);
    if (score > bestScore) {
      bestScore = score;
      container = node as Element | Document;
    }
  });
  dropLinkFragments(container);
  return { roots: [container], wholePage: container === body };
}

function removeNever(root: Element | Document): void {
  const doomed: AnyNode[] = [];
  walk(root, (node) => {
    if (node.type === 'comment' || node.type === 'directive') {
      doomed.push(node);
      return false;
    }
    if (isElement(node) && node !== root && isJunk(node)) {
      doomed.push(node);
      return false;
    }
  });
  removeNodes(doomed);
}

function removeHiddenAndChrome(root: Element | Document, stats: Map<AnyNode, Stats>, tuning: Tuning, keepStyleHidden: boolean): void {
  const totalChars = stats.get(root)?.chars ?? 0;
  // The text the page itself marks as its main content (<main>, <article>, role=main).
  let landmarkChars = 0;
  walk(root, (node) => {
    if (!isElement(node)) return;
    if (node.name === 'main' || node.name === 'article' || node.attribs.role === 'main') {
      landmarkChars += stats.get(node)?.chars ?? 0;
      return false;
    }
  });
  const doomed: AnyNode[] = [];
  walk(root, (node) => {
    if (!isElement(node) || node === root) return;
    const chars = stats.get(node)?.chars ?? 0;
    const big = chars > tuning.chromeGuardShare * totalChars;
    if (isHidden(node, keepStyleHidden)) {
      if (big) return;
      doomed.push(node);
      return false;
    }
    if (isMainLandmark(node)) return;
    const kind = chromeKind(node);
    if (!kind) return;
    // A big chrome element is kept (it may wrap the content) unless the page marks substantial
    // main content elsewhere: then a big <footer> is a big footer.
    if (big && (kind !== 'tag' || landmarkChars < Math.max(500, 0.15 * totalChars) || containsLandmark(node))) return;
    // An article's own header holds its title and standfirst.
    if (node.name === 'header' && insideLandmark(node)) return;
    if (containsLandmark(node)) return;
    // Cards of a listing share one class name; together they are the content, not chrome.
    if (kind === 'name' && siblingGroupChars(node, stats) > tuning.chromeGuardShare * totalChars) return;
    doomed.push(node);
    return false;
  });
  removeNodes(doomed);
}

function siblingGroupChars(el: Element, stats: Map<AnyNode, Stats>): number {
  const signature = el.attribs.class;
  if (!signature || !el.parent) return 0;
  let sum = 0;
  for (const sibling of childrenOf(el.parent)) {
    if (isElement(sibling) && sibling.name === el.name && sibling.attribs.class === signature) sum += stats.get(sibling)?.chars ?? 0;
  }
  return sum;
}

function insideLandmark(el: Element): boolean {
  for (let p = el.parent; p && isElement(p); p = p.parent) if (p.name === 'main' || p.name === 'article' || p.attribs.role === 'main') return true;
  return false;
}

function containsLandmark(el: Element): boolean {
  let found = false;
  walk(el, (node) => {
    if (found) return false;
    if (node !== el && isElement(node) && (node.name === 'main' || node.name === 'article' || node.attribs.role === 'main')) found = true;
  });
  return found;
}

/** Inside the content, the text of link-only fragments outside lists and tables goes; nested blocks stay. */
function dropLinkFragments(container: Element | Document): void {
  const doomed: AnyNode[] = [];
  for (const block of collectTextBlocks(container)) {
    if (block.owner === container || block.chars === 0 || block.linkChars !== block.chars || block.words > 3) continue;
    const tag = (block.owner as Element).name;
    if (tag === 'li' || tag === 'td' || tag === 'th') continue;
    for (const child of childrenOf(block.owner)) {
      if (!isElement(child) || !isBlockTag(child.name)) doomed.push(child);
    }
  }
  removeNodes(doomed);
}

/** Characters, link characters and (unless withWeights is false) content weight of every element, bottom-up. */
export function measure(root: Element | Document, tuning: Tuning, withWeights = true): Map<AnyNode, Stats> {
  const stats = new Map<AnyNode, Stats>();
  const blocks = collectTextBlocks(root);
  const page = { hasLandmark: blocks.some((b) => b.inLandmark) };
  const own = new Map<AnyNode, Stats>();
  for (const block of blocks) {
    own.set(block.owner, {
      chars: block.chars,
      linkChars: block.linkChars,
      weight: withWeights ? block.chars * contentProbability(block, page, tuning.blockWeights) : 0,
    });
  }
  // Bottom-up sums; recursion is safe because the parser caps nesting (dom.ts).
  const sum = (node: Element | Document): Stats => {
    const base = own.get(node);
    const s: Stats = {
      chars: base?.chars ?? 0,
      linkChars: base?.linkChars ?? 0,
      weight: base?.weight ?? 0,
    };
    for (const child of node.children) {
      if (!isElement(child)) continue;
      const c = sum(child);
      s.chars += c.chars;
      s.linkChars += c.linkChars;
      s.weight += c.weight;
    }
    stats.set(node, s);
    return s;
  };
  sum(root);
  return stats;
}
