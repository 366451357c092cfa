// The page as a sequence of text blocks: the text directly inside each block-level element
// (inline descendants included), with what the surroundings say about it.
import { isElement, isText, type AnyNode, type Document, type Element } from './dom.js';
import { isBlockTag } from './markdown-writer.js';
import { nameParts, nameTokens } from './boilerplate.js';

export interface TextBlock {
  /** The block-level element owning the text. */
  owner: Element | Document;
  text: string;
  chars: number;
  linkChars: number;
  /** Words (\w+ runs). */
  words: number;
  /** Inside <main>, <article> or role=main. */
  inLandmark: boolean;
  /** Where the block starts in the page's text, 0..1. */
  position: number;
  /** An ancestor's class or id name has a word that usually marks secondary material. */
  secondaryName: boolean;
  /** An ancestor's class or id name has a word that usually marks content. */
  contentName: boolean;
  /** The same text appeared in an earlier block. */
  repeated: boolean;
}

/** Words that make text less likely to be the content (it stays: they decide weight only). */
const SECONDARY_WORDS = new Set([
  'comment', 'sidebar', 'widget', 'rating', 'ratings', 'stars', 'testimonial', 'testimonials', 'carousel', 'swiper',
  'slider', 'signature', 'disclaimer', 'actions', 'seller', 'offer', 'contact', 'bio', 'author', 'meta', 'tags',
  'tag', 'share', 'social', 'related', 'recommend', 'recommended', 'upsell', 'crosssell', 'promo', 'newsletter',
  'subscribe', 'cta', 'banner', 'badge', 'toolbar', 'btn', 'button', 'modal', 'breadcrumb', 'footer', 'header',
  'menu', 'nav', 'popular', 'trending', 'taxonomy', 'categories', 'category', 'filter', 'filters', 'facets', 'sort',
  'pagination', 'cart', 'wishlist', 'login', 'account', 'notice', 'copyright', 'legal', 'avatar', 'user', 'username',
]);

const CONTENT_NAME_WORDS = new Set([
  'content', 'article', 'post', 'entry', 'body', 'text', 'description', 'main', 'story', 'prose', 'richtext',
  'markdown', 'rte', 'wysiwyg', 'blog', 'answer', 'question', 'message', 'docs', 'documentation',
]);

const WORD = /[\p{L}\p{N}_]+/gu;

interface Frame {
  node: AnyNode;
  block: TextBlock | undefined;
  owner: Element | Document;
  inLink: boolean;
  inLandmark: boolean;
  secondary: boolean;
  content: boolean;
}

export function collectTextBlocks(root: Element | Document): TextBlock[] {
  const blocks: TextBlock[] = [];
  const byOwner = new Map<AnyNode, TextBlock>();
  const pieces = new Map<TextBlock, string[]>();
  const stack: Frame[] = [{ node: root, block: undefined, owner: root, inLink: false, inLandmark: false, secondary: false, content: false }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { node } = frame;
    if (isText(node)) {
      const chars = countNonSpace(node.data);
      if (chars === 0) continue;
      let block = byOwner.get(frame.owner);
      if (!block) {
        block = {
          owner: frame.owner,
          text: '',
          chars: 0,
          linkChars: 0,
          words: 0,
          inLandmark: frame.inLandmark,
          position: 0,
          secondaryName: frame.secondary,
          contentName: frame.content,
          repeated: false,
        };
        byOwner.set(frame.owner, block);
        pieces.set(block, []);
        blocks.push(block);
      }
      pieces.get(block)!.push(node.data);
      block.chars += chars;
      if (frame.inLink) block.linkChars += chars;
      continue;
    }
    if (node !== root && !isElement(node)) continue;
    let { owner, inLink, inLandmark, secondary, content } = frame;
    if (isElement(node)) {
      if (node === root || isBlockTag(node.name)) owner = node;
      inLink ||= node.name === 'a';
      inLandmark ||= node.name === 'main' || node.name === 'article' || node.attribs.role === 'main';
      if (node.attribs.class || node.attribs.id) {
        const names = nameSignals(node);
        secondary ||= names.secondary;
        content ||= names.content;
      }
    }
    const children = 'children' in node ? (node.children as AnyNode[]) : [];
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push({ node: children[i], block: undefined, owner, inLink, inLandmark, secondary, content });
    }
  }
  const total = blocks.reduce((sum, b) => sum + b.chars, 0) || 1;
  const seen = new Set<string>();
  let offset = 0;
  for (const block of blocks) {
    block.text = pieces.get(block)!.join(' ').replace(/\s+/g, ' ').trim();
    block.words = block.text.match(WORD)?.length ?? 0;
    block.position = offset / total;
    offset += block.chars;
    if (block.text.length >= 10) {
      block.repeated = seen.has(block.text);
      seen.add(block.text);
    }
  }
  return blocks;
}

const signalCache = new Map<string, { secondary: boolean; content: boolean }>();

/** What an element's class and id names say; class strings repeat a lot, so answers are cached. */
function nameSignals(el: Element): { secondary: boolean; content: boolean } {
  const key = `${el.attribs.class ?? ''}#${el.attribs.id ?? ''}`;
  let signals = signalCache.get(key);
  if (!signals) {
    signals = { secondary: false, content: false };
    for (const token of nameTokens(el)) {
      for (const part of nameParts(token)) {
        if (SECONDARY_WORDS.has(part)) signals.secondary = true;
        else if (CONTENT_NAME_WORDS.has(part)) signals.content = true;
      }
    }
    if (signalCache.size > 20_000) signalCache.clear();
    signalCache.set(key, signals);
  }
  return signals;
}

function countNonSpace(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 9 && c !== 13 && c !== 12 && c !== 160) n++;
  }
  return n;
}
