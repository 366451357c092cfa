// Finds the main content of a page:
//  1. drop what is never content (scripts, form controls, short <noscript> notices),
//  2. drop hidden elements and page chrome (navigation, headers, footers, banners, dialogs),
//     unless they hold a big share of the text (anti-flicker wrappers, "has-sidebar" layouts),
//  3. give every text block a probability of being content (content-model.ts),
//  4. pick the element whose text maximises the expected word-level F1 against that estimate,
//  5. inside it, drop link clusters that are a small part of it (related links, tag lists).
// When nothing reads like content (a page of links, or almost empty) the cleaned body is returned.
import { bodyOf, childrenOf, isElement, walk, removeNodes, type AnyNode, type Document, type Element } from './dom.js';
import { chromeKind, isHidden, isJunk, isMainLandmark } from './boilerplate.js';
import { collectTextBlocks } from './text-blocks.js';
import { isBlockTag } from './markdown-writer.js';
import { BLOCK_WEIGHTS, contentProbability } from './content-model.js';

export interface Tuning {
  /** Chrome elements holding more than this share of the page's text are kept (they wrap content). */
  chromeGuardShare: number;
  /** Link density above which a cluster of links inside the content is navigation. */
  linkDensityCutoff: number;
  /** Whether link clusters inside the content are dropped. */
  pruneLinkClusters: boolean;
  /** Weights of the block model (content-model.ts). */
  blockWeights: readonly number[];
  /** F-beta the container choice maximises: below 1 favours precision. */
  beta: number;
  /** Exponent on the block probability. */
  sharpness: number;
  /** Inside the content, the direct text of blocks less likely than this to be content is dropped. */
  blockCutoff: number;
}

export const DEFAULT_TUNING: Tuning = { chromeGuardShare: 0.4, linkDensityCutoff: 0.6, pruneLinkClusters: false, blockWeights: BLOCK_WEIGHTS, beta: 0.5, sharpness: 1, blockCutoff: 0 };

export interface Stats {
  /** Non-space characters of text. */
  chars: number;
  /** Of which inside links. */
  linkChars: number;
  /** Expected content characters: Σ P(content) · chars over the blocks inside. */
  weight: number;
  /** Links (<a> elements). */
  links: number;
}

export interface MainContent {
  roots: AnyNode[];
  /** True when no main content stood out and the cleaned body is returned. */
  wholePage: boolean;
}

/** Steps 1 and 2: the body without what is never content and without page chrome. */
export function cleanPage(doc: Document, tuning: Tuning = DEFAULT_TUNING): Element | Document {
  const body = bodyOf(doc);
  removeNever(body);
  removeHiddenAndChrome(body, measure(body, tuning), tuning);
  return body;
}

export function extractMainContent(doc: Document, tuning: Tuning = DEFAULT_TUNING): MainContent {
  const body = cleanPage(doc, tuning);
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
  if (tuning.pruneLinkClusters) pruneLinkClusters(container, stats, tuning);
  if (tuning.blockCutoff > 0) dropUnlikelyText(container, tuning);
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

function removeHiddenAndChrome(root: Element | Document, stats: Map<AnyNode, Stats>, tuning: Tuning): void {
  const totalChars = stats.get(root)?.chars ?? 0;
  const doomed: AnyNode[] = [];
  walk(root, (node) => {
    if (!isElement(node) || node === root) return;
    const chars = stats.get(node)?.chars ?? 0;
    const big = chars > tuning.chromeGuardShare * totalChars;
    if (isHidden(node)) {
      if (big) return;
      doomed.push(node);
      return false;
    }
    if (isMainLandmark(node)) return;
    const kind = chromeKind(node);
    if (!kind || big) return;
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

function containsLandmark(el: Element): boolean {
  let found = false;
  walk(el, (node) => {
    if (found) return false;
    if (node !== el && isElement(node) && (node.name === 'main' || node.name === 'article' || node.attribs.role === 'main')) found = true;
  });
  return found;
}

/** Inside the content, clusters of links that are a small part of it are navigation. */
function pruneLinkClusters(container: Element | Document, stats: Map<AnyNode, Stats>, tuning: Tuning): void {
  const totalChars = stats.get(container)?.chars ?? 0;
  const doomed: AnyNode[] = [];
  walk(container, (node) => {
    if (!isElement(node) || node === container) return;
    const s = stats.get(node);
    if (!s || s.chars === 0) return;
    const density = s.linkChars / s.chars;
    // One link (a card's title) is not a cluster.
    if (density <= tuning.linkDensityCutoff || s.links < 2) return;
    // A link-dense block that is a big part of the content is a listing: keep it whole.
    if (s.chars > 0.25 * totalChars) return false;
    doomed.push(node);
    return false;
  });
  removeNodes(doomed);
}

/**
 * Inside the content, the text of blocks that are unlikely content goes (bylines, vote counts,
 * "Reply" buttons, signatures); nested blocks stay.
 */
function dropUnlikelyText(container: Element | Document, tuning: Tuning): void {
  const blocks = collectTextBlocks(container);
  const page = { hasLandmark: blocks.some((b) => b.inLandmark) };
  const doomed: AnyNode[] = [];
  for (const block of blocks) {
    if (block.owner === container) continue;
    if (contentProbability(block, page, tuning.blockWeights) >= tuning.blockCutoff) continue;
    for (const child of childrenOf(block.owner)) {
      if (!isElement(child) || !isBlockTag(child.name)) doomed.push(child);
    }
  }
  removeNodes(doomed);
}

/** Characters, link characters, links and content weight of every element, bottom-up. */
export function measure(root: Element | Document, tuning: Tuning): Map<AnyNode, Stats> {
  const stats = new Map<AnyNode, Stats>();
  const blocks = collectTextBlocks(root);
  const page = { hasLandmark: blocks.some((b) => b.inLandmark) };
  const own = new Map<AnyNode, Stats>();
  for (const block of blocks) {
    own.set(block.owner, {
      chars: block.chars,
      linkChars: block.linkChars,
      weight: block.chars * contentProbability(block, page, tuning.blockWeights) ** tuning.sharpness,
      links: 0,
    });
  }
  // Bottom-up sums; recursion is safe because the parser caps nesting (dom.ts).
  const sum = (node: Element | Document): Stats => {
    const base = own.get(node);
    const s: Stats = {
      chars: base?.chars ?? 0,
      linkChars: base?.linkChars ?? 0,
      weight: base?.weight ?? 0,
      links: node.type !== 'root' && (node as Element).name === 'a' ? 1 : 0,
    };
    for (const child of node.children) {
      if (!isElement(child)) continue;
      const c = sum(child);
      s.chars += c.chars;
      s.linkChars += c.linkChars;
      s.weight += c.weight;
      s.links += c.links;
    }
    stats.set(node, s);
    return s;
  };
  sum(root);
  return stats;
}
