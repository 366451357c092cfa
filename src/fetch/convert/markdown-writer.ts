// DOM → GitHub-flavoured markdown in one pass. Output is collected in arrays and joined once, so
// the cost is linear in the page (node-html-markdown re-reads its output per node: quadratic; figures in docs/fetch.md).
// Nesting deeper than MAX_DEPTH is flattened to plain text: bounded recursion, bounded indentation.
import { childrenOf, findFirst, isElement, isText, textOf, type AnyNode, type Element } from './dom.js';
import { absoluteImage, absoluteLink, imageSource } from './urls.js';

const MAX_DEPTH = 200;
const MAX_LIST_INDENT_LEVELS = 8;
const MIN_DEDUPLICATED_LENGTH = 25;

const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'center', 'dd', 'details', 'dialog', 'dir', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr',
  'html', 'legend', 'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot',
  'th', 'thead', 'tr', 'ul', 'caption', 'listing', 'xmp', 'plaintext', 'search',
]);

const SKIPPED_TAGS = new Set([
  'script', 'style', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed', 'head', 'title', 'meta',
  'link', 'button', 'select', 'option', 'optgroup', 'input', 'textarea', 'map', 'area', 'audio', 'video', 'source',
  'track', 'param', 'datalist', 'dialog', 'base', 'frame', 'frameset',
]);

export function isBlockTag(name: string): boolean {
  return BLOCK_TAGS.has(name);
}

export function isSkippedTag(name: string): boolean {
  return SKIPPED_TAGS.has(name);
}

interface Context {
  depth: number;
  listLevel: number;
  inLink: boolean;
}

/**
 * Pages repeat themselves (a mobile and a desktop copy of the same block, a sticky summary):
 * a block of text already written once is not written again.
 */
class SeenBlocks {
  private readonly seen = new Set<string>();

  first(block: string): boolean {
    if (block.length < MIN_DEDUPLICATED_LENGTH) return true;
    if (this.seen.has(block)) return false;
    this.seen.add(block);
    return true;
  }
}

/** Collects the blocks of one container; inline content accumulates until a block breaks it. */
class BlockSink {
  readonly blocks: string[] = [];
  private inline: string[] = [];

  constructor(private readonly seen: SeenBlocks) {}

  text(piece: string): void {
    this.inline.push(piece);
  }

  block(markdown: string): void {
    this.flush();
    if (markdown && this.seen.first(markdown)) this.blocks.push(markdown);
  }

  flush(): void {
    if (this.inline.length === 0) return;
    const paragraph = finishInline(this.inline.join(''));
    this.inline = [];
    if (paragraph && this.seen.first(paragraph)) this.blocks.push(escapeLineStart(paragraph));
  }

  /** Blocks joined; a list right after text inside a list item stays tight. */
  join(tight = false): string {
    this.flush();
    if (!tight) return this.blocks.join('\n\n');
    let out = '';
    for (let i = 0; i < this.blocks.length; i++) {
      if (i > 0) out += /^(?:[-*+]|\d+\.) /.test(this.blocks[i]) ? '\n' : '\n\n';
      out += this.blocks[i];
    }
    return out;
  }
}

/** Collapses spaces, keeps hard breaks (\n) and trims each line. */
function finishInline(raw: string): string {
  return raw
    .replace(/[ \t\r\f\u00a0]+/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line, i, lines) => line !== '' || (i > 0 && i < lines.length - 1))
    .join('  \n')
    .trim();
}

function escapeText(text: string): string {
  return text
    .replace(/[\\`*[\]]/g, '\\$&')
    .replace(/<(?=[A-Za-z/!?])/g, '\\<')
    .replace(/(^|[^\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, (m) => m.replace('_', '\\_'));
}

function escapeLineStart(paragraph: string): string {
  return paragraph.replace(/^(#{1,6} |>|[-+] |(\d+)\. )/, (m, _all, digits: string | undefined) =>
    digits !== undefined ? `${digits}\\. ` : `\\${m}`,
  );
}

function linkTarget(url: string): string {
  const encoded = url.replace(/ /g, '%20');
  return /[()<>]/.test(encoded) ? `<${encoded.replace(/</g, '%3C').replace(/>/g, '%3E')}>` : encoded;
}

const FILE_NAME = /^[\w.-]+\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?)$|^(?:img|image|dsc|photo|pic|screenshot)[-_ ]?\d+$/i;

const CODE_LANGUAGE = /(?:^|\s)(?:lang(?:uage)?|highlight|brush|hljs|sourceCode)[-:]\s*([A-Za-z0-9_+#.-]+)/;

function codeLanguage(el: Element): string | undefined {
  for (let node: Element | null = el, i = 0; node && i < 3; node = node.parent as Element | null, i++) {
    if (!isElement(node)) break;
    const explicit = node.attribs['data-lang'] ?? node.attribs['data-language'];
    if (explicit && /^[\w+#.-]+$/.test(explicit)) return explicit.toLowerCase();
    const match = CODE_LANGUAGE.exec(node.attribs.class ?? '');
    if (match && !/^(?:none|plain|nohighlight)$/i.test(match[1])) return match[1].toLowerCase();
  }
  const code = el.children.find((c): c is Element => isElement(c) && c.name === 'code');
  if (code) {
    const match = CODE_LANGUAGE.exec(code.attribs.class ?? '');
    if (match) return match[1].toLowerCase();
  }
  return undefined;
}

/** Text of a <pre>, keeping its whitespace; <br> is a newline. */
function preformattedText(root: Element): string {
  const parts: string[] = [];
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isText(node)) parts.push(node.data);
    else if (isElement(node)) {
      if (node.name === 'br') parts.push('\n');
      else if (SKIPPED_TAGS.has(node.name)) continue;
      // Line-numbered highlighters put each line in its own block element.
      if (node !== root && (node.name === 'div' || node.name === 'p' || node.name === 'tr') && parts.length > 0 && !parts[parts.length - 1].endsWith('\n')) {
        parts.push('\n');
      }
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    }
  }
  return parts.join('').replace(/^\n/, '').replace(/\s+$/, '');
}

function fence(code: string, language: string | undefined): string {
  const longest = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${language ?? ''}\n${code}\n${marks}`;
}

function inlineCode(text: string): string {
  const collapsed = text.replace(/\s+/g, ' ');
  if (!collapsed.trim()) return '';
  const longest = Math.max(0, ...(collapsed.match(/`+/g) ?? []).map((run) => run.length));
  const marks = '`'.repeat(longest + 1);
  const pad = collapsed.startsWith('`') || collapsed.endsWith('`') ? ' ' : '';
  return `${marks}${pad}${collapsed}${pad}${marks}`;
}

function containsBlock(el: Element): boolean {
  const stack: AnyNode[] = [...el.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElement(node)) continue;
    if (BLOCK_TAGS.has(node.name)) return true;
    for (const c of node.children) stack.push(c);
  }
  return false;
}

export interface MarkdownOptions {
  base: URL | undefined;
}

export class MarkdownWriter {
  private seen = new SeenBlocks();
  private seenImages = new Set<string>();
  /** Texts under the roots, computed on the first image that has alt text. */
  private visibleTexts: Set<string> | undefined;
  private roots: AnyNode[] = [];
  /** Parent element → its first slide when it is a gallery, null when it is not. */
  private galleries = new Map<AnyNode, AnyNode | null>();

  constructor(private readonly options: MarkdownOptions) {}

  /** Markdown of the given containers, in order. */
  write(roots: AnyNode[]): string {
    this.seen = new SeenBlocks();
    this.seenImages = new Set();
    this.roots = roots;
    this.visibleTexts = undefined;
    this.galleries = new Map();
    const sink = new BlockSink(this.seen);
    for (const root of roots) this.node(root, sink, { depth: 0, listLevel: 0, inLink: false });
    return sink.join().replace(/\n{3,}/g, '\n\n').trim();
  }

  private children(el: AnyNode, sink: BlockSink, ctx: Context): void {
    if (!('children' in el)) return;
    const next = { ...ctx, depth: ctx.depth + 1 };
    for (const child of el.children as AnyNode[]) this.node(child, sink, next);
  }

  private node(node: AnyNode, sink: BlockSink, ctx: Context): void {
    if (isText(node)) {
      sink.text(escapeText(node.data.replace(/[\s\u00a0]+/g, ' ')));
      return;
    }
    if (node.type === 'root') {
      this.children(node, sink, ctx);
      return;
    }
    if (!isElement(node) || SKIPPED_TAGS.has(node.name)) return;
    if (ctx.depth > MAX_DEPTH) {
      sink.text(' ' + escapeText(textOf(node)) + ' ');
      return;
    }
    switch (node.name) {
      case 'br':
        sink.text('\n');
        return;
      case 'hr':
        sink.block('---');
        return;
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': {
        const text = this.inlineOf(node, ctx).replace(/\s*\n\s*/g, ' ');
        if (text) sink.block(`${'#'.repeat(Number(node.name[1]))} ${text}`);
        return;
      }
      case 'p':
        sink.flush();
        this.children(node, sink, ctx);
        sink.flush();
        return;
      case 'pre': case 'listing': case 'xmp': case 'plaintext': {
        const code = preformattedText(node);
        if (code.trim()) sink.block(fence(code, codeLanguage(node)));
        return;
      }
      case 'ul': case 'ol': case 'menu': case 'dir':
        sink.block(this.list(node, ctx));
        return;
      case 'blockquote': {
        const inner = this.blocksOf(node, ctx);
        if (inner) sink.block(inner.split('\n').map((line) => (line ? `> ${line}` : '>')).join('\n'));
        return;
      }
      case 'table':
        this.table(node, sink, ctx);
        return;
      case 'dt': {
        const text = this.inlineOf(node, ctx);
        if (text) sink.block(`**${text.replace(/\n/g, ' ')}**`);
        return;
      }
      case 'img':
        sink.text(this.image(node));
        return;
      case 'a':
        this.link(node, sink, ctx);
        return;
      case 'code': case 'kbd': case 'samp': case 'tt':
        if (containsBlock(node)) break;
        sink.text(inlineCode(textOf(node)));
        return;
      case 'strong': case 'b':
        this.emphasis(node, sink, ctx, '**');
        return;
      case 'em': case 'i': case 'cite': case 'dfn':
        this.emphasis(node, sink, ctx, '*');
        return;
      case 'del': case 's': case 'strike':
        this.emphasis(node, sink, ctx, '~~');
        return;
      default:
        break;
    }
    if (BLOCK_TAGS.has(node.name)) {
      sink.flush();
      this.children(node, sink, ctx);
      sink.flush();
    } else {
      this.children(node, sink, ctx);
    }
  }

  /** Inline markdown of an element, flattened to one paragraph. */
  private inlineOf(el: Element, ctx: Context): string {
    const sink = new BlockSink(this.seen);
    this.children(el, sink, ctx);
    sink.flush();
    return sink.blocks.join(' ').trim();
  }

  private blocksOf(el: Element, ctx: Context, tight = false): string {
    const sink = new BlockSink(this.seen);
    this.children(el, sink, ctx);
    return sink.join(tight);
  }

  private emphasis(el: Element, sink: BlockSink, ctx: Context, marks: string): void {
    if (containsBlock(el)) {
      this.children(el, sink, ctx);
      return;
    }
    const inner = this.inlineOf(el, ctx);
    if (!inner) return;
    if (inner.includes('\n') || inner.startsWith(marks[0]) || inner.endsWith(marks[0])) {
      sink.text(` ${inner} `);
      return;
    }
    sink.text(` ${marks}${inner}${marks} `.replace(/^ /, spaceBefore(el)).replace(/ $/, spaceAfter(el)));
  }

  private image(img: Element): string {
    const src = absoluteImage(imageSource(img), this.options.base);
    if (!src || this.seenImages.has(src)) return '';
    this.seenImages.add(src);
    if (isIcon(img) || this.inLaterSlide(img)) return '';
    let alt = (img.attribs.alt ?? '').replace(/\s+/g, ' ').trim();
    // A card's thumbnail usually repeats the card's title as its alt text: say it once. File names are not descriptions.
    if (alt) {
      this.visibleTexts ??= visibleTexts(this.roots);
      if (this.visibleTexts.has(alt.toLowerCase()) || FILE_NAME.test(alt)) alt = '';
    }
    return `![${alt.replace(/[[\]\\]/g, '\\$&')}](${linkTarget(src)})`;
  }

  /**
   * Galleries and carousels (three or more sibling slides holding only images) show one picture at
   * a time; the markdown keeps the first slide's image instead of listing every shot.
   */
  private inLaterSlide(img: Element): boolean {
    let slide: AnyNode = img;
    for (let level = 0; level < 4 && slide.parent; level++, slide = slide.parent) {
      const parent = slide.parent;
      let first = this.galleries.get(parent);
      if (first === undefined) {
        first = firstSlideOf(parent);
        this.galleries.set(parent, first);
      }
      if (first) return slide !== first;
    }
    return false;
  }

  private link(a: Element, sink: BlockSink, ctx: Context): void {
    const href = ctx.inLink ? undefined : absoluteLink(a.attribs.href, this.options.base);
    const inner: Context = { ...ctx, inLink: ctx.inLink || href !== undefined };
    if (containsBlock(a)) {
      // A card: the link wraps headings and paragraphs. Keep the blocks and link the first one.
      const blocks = new BlockSink(this.seen);
      this.children(a, blocks, inner);
      blocks.flush();
      if (href) {
        const first = blocks.blocks.findIndex((b) => !b.startsWith('![') && !b.startsWith('```'));
        if (first >= 0) {
          const match = /^(#{1,6} )?([\s\S]*)$/.exec(blocks.blocks[first])!;
          if (!match[2].includes('](')) blocks.blocks[first] = `${match[1] ?? ''}[${match[2]}](${linkTarget(href)})`;
        }
      }
      sink.block(blocks.join());
      return;
    }
    const linkSink = new BlockSink(this.seen);
    this.children(a, linkSink, inner);
    linkSink.flush();
    const text = linkSink.blocks.join(' ').replace(/\s*\n\s*/g, ' ').trim();
    if (!text) return;
    sink.text(href ? `${spaceBefore(a)}[${text}](${linkTarget(href)})${spaceAfter(a)}` : ` ${text} `);
  }

  private list(list: Element, ctx: Context): string {
    const ordered = list.name === 'ol';
    let number = ordered ? Number.parseInt(list.attribs.start ?? '1', 10) : 0;
    if (!Number.isFinite(number)) number = 1;
    const inner: Context = { ...ctx, depth: ctx.depth + 1, listLevel: ctx.listLevel + 1 };
    const items: string[] = [];
    const loose = new BlockSink(this.seen);
    for (const child of list.children) {
      if (isElement(child) && child.name === 'li') {
        const stray = loose.join();
        if (stray) items.push(stray);
        loose.blocks.length = 0;
        const body = this.blocksOf(child, inner, true);
        if (!body) continue;
        const marker = ordered ? `${number++}. ` : '- ';
        const indent = ctx.listLevel < MAX_LIST_INDENT_LEVELS ? ' '.repeat(marker.length) : '';
        items.push(marker + body.split('\n').map((line, i) => (i === 0 || !line ? line : indent + line)).join('\n'));
      } else {
        this.node(child, loose, inner);
      }
    }
    const stray = loose.join();
    if (stray) items.push(stray);
    return items.join('\n');
  }

  private table(table: Element, sink: BlockSink, ctx: Context): void {
    const rows = tableRows(table);
    const layout = isLayoutTable(table, rows);
    if (layout) {
      sink.flush();
      for (const row of rows) for (const cell of row) this.node(cell, sink, { ...ctx, depth: ctx.depth + 1 });
      sink.flush();
      return;
    }
    const caption = table.children.find((c): c is Element => isElement(c) && c.name === 'caption');
    if (caption) {
      const text = this.inlineOf(caption, ctx);
      if (text) sink.block(text);
    }
    const grid: string[][] = [];
    const spans: { col: number; left: number }[] = [];
    for (const row of rows) {
      const cells: string[] = [];
      let col = 0;
      const place = (): void => {
        for (;;) {
          const held = spans.find((s) => s.col === col && s.left > 0);
          if (!held) return;
          held.left--;
          cells.push('');
          col++;
        }
      };
      for (const cell of row) {
        place();
        const text = this.inlineOf(cell, ctx).replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
        const colspan = clampSpan(cell.attribs.colspan);
        const rowspan = clampSpan(cell.attribs.rowspan);
        for (let c = 0; c < colspan; c++) {
          cells.push(c === 0 ? text : '');
          if (rowspan > 1) spans.push({ col: col + c, left: rowspan - 1 });
        }
        col += colspan;
      }
      place();
      grid.push(cells);
    }
    const width = Math.max(0, ...grid.map((r) => r.length));
    if (width === 0) return;
    const lines = grid
      .filter((r) => r.some((c) => c !== ''))
      .map((r) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`);
    if (lines.length === 0) return;
    lines.splice(1, 0, `| ${Array.from({ length: width }, () => '---').join(' | ')} |`);
    sink.block(lines.join('\n'));
  }
}

function firstSlideOf(parent: AnyNode): AnyNode | null {
  const slides = childrenOf(parent).filter(isElement);
  if (slides.length < 3) return null;
  for (const slide of slides) {
    if (!(slide.name === 'img' || findFirst(slide, (el) => el.name === 'img')) || textOf(slide) !== '') return null;
  }
  return slides[0];
}

/** Tracking pixels and interface icons: explicitly tiny. */
function isIcon(img: Element): boolean {
  const size = (raw: string | undefined): number => (raw && /^\d+(?:px)?$/.test(raw.trim()) ? Number.parseInt(raw, 10) : Number.NaN);
  const width = size(img.attribs.width);
  const height = size(img.attribs.height);
  return width < 32 || height < 32;
}

/** Lower-cased texts of the text nodes and links under the roots. */
function visibleTexts(roots: AnyNode[]): Set<string> {
  const texts = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isText(node)) {
      const text = node.data.replace(/\s+/g, ' ').trim().toLowerCase();
      if (text) texts.add(text);
    } else if ('children' in node) {
      if (isElement(node) && (node.name === 'a' || /^h[1-6]$/.test(node.name))) texts.add(textOf(node).toLowerCase());
      for (const child of node.children as AnyNode[]) stack.push(child);
    }
  }
  return texts;
}

function clampSpan(raw: string | undefined): number {
  const n = Number.parseInt(raw ?? '1', 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, 50) : 1;
}

/** The cells of each row of this table (not of nested tables), thead rows first. */
function tableRows(table: Element): Element[][] {
  const head: Element[][] = [];
  const body: Element[][] = [];
  const rowCells = (tr: Element): Element[] => tr.children.filter((c): c is Element => isElement(c) && (c.name === 'td' || c.name === 'th'));
  for (const child of table.children) {
    if (!isElement(child)) continue;
    if (child.name === 'tr') body.push(rowCells(child));
    else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot') {
      for (const tr of child.children) if (isElement(tr) && tr.name === 'tr') (child.name === 'thead' ? head : body).push(rowCells(tr));
    }
  }
  return [...head, ...body].filter((r) => r.length > 0);
}

/** Tables used for page layout (nested tables, block-filled cells, one column) are read as blocks. */
function isLayoutTable(table: Element, rows: Element[][]): boolean {
  if (table.attribs.role === 'presentation' || table.attribs.role === 'none') return true;
  if (rows.length === 0) return true;
  if (Math.max(...rows.map((r) => r.length)) === 1) return true;
  for (const row of rows) {
    for (const cell of row) {
      let blocks = 0;
      const stack: AnyNode[] = [...cell.children];
      while (stack.length > 0) {
        const node = stack.pop()!;
        if (!isElement(node)) continue;
        if (node.name === 'table') return true;
        if (node.name === 'p' || node.name === 'ul' || node.name === 'ol' || node.name === 'pre' || node.name === 'blockquote' || /^h[1-6]$/.test(node.name)) {
          if (++blocks > 2) return true;
        }
        for (const c of node.children) stack.push(c);
      }
    }
  }
  return false;
}

function spaceBefore(el: Element): string {
  const prev = el.prev;
  return prev && isText(prev) && /\S$/.test(prev.data) ? '' : ' ';
}

function spaceAfter(el: Element): string {
  const next = el.next;
  return next && isText(next) && /^[^\s]/.test(next.data) ? '' : ' ';
}
