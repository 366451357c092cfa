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

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** Inherited while descending: which block owns the text, and what the ancestors said. */
interface Context {
  owner: Element | Document;
  inLink: boolean;
  inLandmark: boolean;
  secondary: boolean;
  content: boolean;
}

/**
 * Text blocks in document order. Recursive: the parser caps nesting (dom.ts), and recursion with
 * a shared context allocates far less than an explicit stack of frames on pages of 100 000 nodes.
 */
export function collectTextBlocks(root: Element | Document): TextBlock[] {
  const blocks: TextBlock[] = [];
  const byOwner = new Map<AnyNode, TextBlock>();
  const visit = (node: AnyNode, ctx: Context): void => {
    if (isText(node)) {
      const chars = countNonSpace(node.data);
      if (chars === 0) return;
      let block = byOwner.get(ctx.owner);
      if (!block) {
        block = {
          owner: ctx.owner,
          text: node.data,
          chars: 0,
          linkChars: 0,
          words: 0,
          inLandmark: ctx.inLandmark,
          position: 0,
          secondaryName: ctx.secondary,
          contentName: ctx.content,
          repeated: false,
        };
        byOwner.set(ctx.owner, block);
        blocks.push(block);
      } else block.text += ` ${node.data}`;
      block.chars += chars;
      if (ctx.inLink) block.linkChars += chars;
      return;
    }
    if (node !== root && !isElement(node)) return;
    let inner = ctx;
    if (isElement(node)) {
      const owns = node === root || isBlockTag(node.name);
      const link = node.name === 'a';
      const landmark = node.name === 'main' || node.name === 'article' || node.attribs.role === 'main';
      const names = node.attribs.class || node.attribs.id ? nameSignals(node) : undefined;
      if (owns || (link && !ctx.inLink) || (landmark && !ctx.inLandmark) || (names && ((names.secondary && !ctx.secondary) || (names.content && !ctx.content)))) {
        inner = {
          owner: owns ? node : ctx.owner,
          inLink: ctx.inLink || link,
          inLandmark: ctx.inLandmark || landmark,
          secondary: ctx.secondary || !!names?.secondary,
          content: ctx.content || !!names?.content,
        };
      }
    }
    const children = (node as Element).children as AnyNode[] | undefined;
    if (children) for (const child of children) visit(child, inner);
  };
  visit(root, { owner: root, inLink: false, inLandmark: false, secondary: false, content: false });
  const total = blocks.reduce((sum, b) => sum + b.chars, 0) || 1;
  const seen = new Set<string>();
  let offset = 0;
  for (const block of blocks) {
    block.text = block.text.replace(/\s+/g, ' ').trim();
    block.words = countWords(block.text);
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

/** The number of \w+ runs (Unicode letters, digits, underscore) without building them. */
function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const word = c < 128 ? (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 : WORD_CHAR.test(text[i]);
    if (word && !inWord) words++;
    inWord = word;
  }
  return words;
}

function countNonSpace(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 9 && c !== 13 && c !== 12 && c !== 160) n++;
  }
  return n;
}
