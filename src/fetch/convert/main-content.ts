// Finds the main content of a page:
//  1. drop what is never content (scripts, hidden elements, form controls),
//  2. drop page chrome (navigation, headers, footers, sidebars, banners) unless it holds most of the text,
//  3. weigh every text block by its length and how little of it is link text,
//  4. descend from <body> while one child still holds most of the weight: that element is the content,
//  5. inside it, drop link-dense blocks that are a small part of it (related links, tag lists, share bars).
// When no block weighs anything (a page of links, or almost empty) the cleaned body is the content.
import { bodyOf, elementsPostOrder, isElement, isText, walk, removeNodes, type AnyNode, type Document, type Element } from './dom.js';
import { chromeKind, isHidden, isJunk, isMainLandmark } from './boilerplate.js';
import { isBlockTag } from './markdown-writer.js';

export interface Tuning {
  /** A child keeps the descent going while it holds this share of the content weight. */
  descentShare: number;
  /** Chrome elements holding more than this share of the page's text are kept (they wrap content). */
  chromeGuardShare: number;
  /** Link density above which a block is navigation. */
  linkDensityCutoff: number;
}

export const DEFAULT_TUNING: Tuning = { descentShare: 0.8, chromeGuardShare: 0.4, linkDensityCutoff: 0.6 };

interface Stats {
  /** Non-space characters of text. */
  chars: number;
  /** Of which inside links. */
  linkChars: number;
  /** Content weight: text of blocks that read like prose rather than navigation. */
  weight: number;
}

export interface MainContent {
  roots: AnyNode[];
  /** True when no main content stood out and the cleaned body is returned. */
  wholePage: boolean;
}

export function extractMainContent(doc: Document, tuning: Tuning = DEFAULT_TUNING): MainContent {
  const body = bodyOf(doc);
  removeNever(body);
  let stats = measure(body, tuning);
  removeHiddenAndChrome(body, stats, tuning);
  stats = measure(body, tuning);
  const total = stats.get(body)?.weight ?? 0;
  if (total < 60) return { roots: [body], wholePage: true };

  let container: Element | Document = body;
  for (;;) {
    let best: Element | undefined;
    let bestWeight = -1;
    for (const child of container.children) {
      if (!isElement(child)) continue;
      const w = stats.get(child)?.weight ?? 0;
      if (w > bestWeight) {
        best = child;
        bestWeight = w;
      }
    }
    if (!best || bestWeight < tuning.descentShare * total) break;
    container = best;
  }
  pruneLinkClusters(container, stats, tuning);
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

/**
 * Hidden elements and chrome go, unless they hold a big share of the text: anti-flicker
 * wrappers hide the whole page until scripts run, and layout wrappers get names like "has-sidebar".
 */
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
    doomed.push(node);
    return false;
  });
  removeNodes(doomed);
}

function containsLandmark(el: Element): boolean {
  let found = false;
  walk(el, (node) => {
    if (found) return false;
    if (node !== el && isElement(node) && (node.name === 'main' || node.name === 'article' || node.attribs.role === 'main')) found = true;
  });
  return found;
}

/** Inside the content, link-dense blocks that are a small part of it are navigation. */
function pruneLinkClusters(container: Element | Document, stats: Map<AnyNode, Stats>, tuning: Tuning): void {
  const totalChars = stats.get(container)?.chars ?? 0;
  const doomed: AnyNode[] = [];
  walk(container, (node) => {
    if (!isElement(node) || node === container) return;
    const s = stats.get(node);
    if (!s || s.chars === 0) return;
    const density = s.linkChars / s.chars;
    if (density <= tuning.linkDensityCutoff) return;
    // A link-dense block that is a big part of the content is a listing: keep it whole.
    if (s.chars > 0.25 * totalChars) return false;
    doomed.push(node);
    return false;
  });
  removeNodes(doomed);
}

/** Characters, link characters and content weight of every element, bottom-up. */
function measure(root: Element | Document, tuning: Tuning): Map<AnyNode, Stats> {
  const stats = new Map<AnyNode, Stats>();
  // Each text node belongs to its nearest block-level ancestor: that block is one unit of text.
  const blockChars = new Map<AnyNode, { chars: number; linkChars: number }>();
  const stack: { node: AnyNode; block: AnyNode; inLink: boolean }[] = [{ node: root, block: root, inLink: false }];
  while (stack.length > 0) {
    const { node, block, inLink } = stack.pop()!;
    if (isText(node)) {
      const chars = node.data.replace(/\s+/g, '').length;
      if (chars === 0) continue;
      let b = blockChars.get(block);
      if (!b) blockChars.set(block, (b = { chars: 0, linkChars: 0 }));
      b.chars += chars;
      if (inLink) b.linkChars += chars;
      continue;
    }
    if (!isElement(node) && node !== root) continue;
    const el = node as Element;
    const ownBlock = node === root || isBlockTag(el.name) ? node : block;
    const link = inLink || (isElement(node) && node.name === 'a');
    const children = 'children' in node ? (node.children as AnyNode[]) : [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], block: ownBlock, inLink: link });
  }
  const order: AnyNode[] = elementsPostOrder(root);
  if (!isElement(root)) order.push(root);
  for (const el of order) {
    const own = blockChars.get(el);
    const s: Stats = { chars: own?.chars ?? 0, linkChars: own?.linkChars ?? 0, weight: own ? blockWeight(own.chars, own.linkChars, tuning) : 0 };
    for (const child of 'children' in el ? (el.children as AnyNode[]) : []) {
      const c = stats.get(child);
      if (!c) continue;
      s.chars += c.chars;
      s.linkChars += c.linkChars;
      s.weight += c.weight;
    }
    stats.set(el, s);
  }
  return stats;
}

function blockWeight(chars: number, linkChars: number, tuning: Tuning): number {
  if (chars < 20) return 0;
  const density = linkChars / chars;
  if (density > tuning.linkDensityCutoff) return 0;
  return chars * (1 - density);
}
