// The parsed page: a domhandler tree built by htmlparser2 (through cheerio), about 4x faster than
// parse5 on real pages and linear in the input. Every walk here is iterative, so a page nested
// 100 000 levels deep cannot overflow the stack.
import { load } from 'cheerio';
import type { AnyNode, Document, Element, Text } from 'domhandler';

export type { AnyNode, Document, Element, Text };

export function parseHtml(html: string): Document {
  // Outside SVG and MathML, browsers read "<![CDATA[" as a comment that ends at the next ">";
  // htmlparser2 would swallow everything up to "]]>".
  const $ = load(limitNesting(withoutHtmlCdata(html), MAX_NESTING), { xml: { xmlMode: false, decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true } });
  return $.root()[0] as Document;
}

const MAX_NESTING = 512;
const VOID_TAGS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'keygen']);
/** Elements pages often leave open (the parser closes them implicitly): they do not count as nesting. */
const LOOSE_TAGS = new Set(['p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option', 'optgroup', 'thead', 'tbody', 'tfoot', 'rb', 'rt', 'rp', 'colgroup', 'caption', 'html', 'head', 'body']);
const RAW_TEXT_TAGS = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);

/**
 * Drops the start and end tags of elements nested deeper than maxDepth, keeping their content.
 * HTML parsers keep their stack of open elements in arrays they search and shift (htmlparser2 and
 * parse5 both), which turns a page nested 100 000 deep into minutes of work; capped, it stays linear.
 */
function limitNesting(html: string, maxDepth: number): string {
  const tags = /<!--|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*>/g;
  const parts: string[] = [];
  let lower: string | undefined;
  let depth = 0;
  let dropped = 0;
  let copied = 0;
  for (let m = tags.exec(html); m; m = tags.exec(html)) {
    if (m[0] === '<!--') {
      const end = html.indexOf('-->', m.index + 4);
      tags.lastIndex = end < 0 ? html.length : end + 3;
      continue;
    }
    const closing = m[1] === '/';
    const name = m[2].toLowerCase();
    if (!closing && RAW_TEXT_TAGS.has(name)) {
      lower ??= html.toLowerCase();
      const end = lower.indexOf(`</${name}`, tags.lastIndex);
      tags.lastIndex = end < 0 ? html.length : end;
      continue;
    }
    if (VOID_TAGS.has(name) || LOOSE_TAGS.has(name) || m[0].endsWith('/>')) continue;
    if (!closing) {
      if (depth < maxDepth) depth++;
      else {
        parts.push(html.slice(copied, m.index));
        copied = tags.lastIndex;
        dropped++;
      }
    } else if (dropped > 0) {
      parts.push(html.slice(copied, m.index));
      copied = tags.lastIndex;
      dropped--;
    } else if (depth > 0) depth--;
  }
  if (copied === 0) return html;
  parts.push(html.slice(copied));
  return parts.join('');
}

/** Drops "<![CDATA[...>" outside scripts, in one linear scan. */
function withoutHtmlCdata(html: string): string {
  if (!html.includes('<![CDATA[')) return html;
  const marks = /<script\b|<\/script\s*>|<!\[CDATA\[/gi;
  const parts: string[] = [];
  let inScript = false;
  let copied = 0;
  for (let m = marks.exec(html); m; m = marks.exec(html)) {
    const mark = m[0].toLowerCase();
    if (mark.startsWith('<script')) inScript = true;
    else if (mark.startsWith('</script')) inScript = false;
    else if (!inScript) {
      const end = html.indexOf('>', m.index);
      parts.push(html.slice(copied, m.index));
      copied = end < 0 ? html.length : end + 1;
      marks.lastIndex = copied;
    }
  }
  parts.push(html.slice(copied));
  return parts.join('');
}

export function isElement(node: AnyNode): node is Element {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}

export function isText(node: AnyNode): node is Text {
  return node.type === 'text';
}

export function childrenOf(node: AnyNode): AnyNode[] {
  return 'children' in node ? (node.children as AnyNode[]) : [];
}

/** Pre-order walk; `visit` returns false to skip a subtree. */
export function walk(root: AnyNode, visit: (node: AnyNode) => boolean | void): void {
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (visit(node) === false) continue;
    const children = childrenOf(node);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** Elements that flow inside a line: their edges add no space ("<strong>tables</strong>, lists"). */
const INLINE_TAGS = new Set([
  'a', 'abbr', 'b', 'bdi', 'bdo', 'big', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font', 'i', 'ins', 'kbd', 'label',
  'mark', 'nobr', 'q', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'var',
]);

const BLOCK_END = Symbol('block end');

/** Text content with whitespace collapsed; the edges of blocks, cells and line breaks read as a space. */
export function textOf(root: AnyNode): string {
  const parts: string[] = [];
  // Iterative like walk(), with a marker for where a block element ends.
  const stack: (AnyNode | typeof BLOCK_END)[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === BLOCK_END) {
      parts.push(' ');
      continue;
    }
    if (isText(node)) {
      parts.push(node.data);
      continue;
    }
    if (isElement(node)) {
      if (node.name === 'script' || node.name === 'style' || node.name === 'template') continue;
      if (!INLINE_TAGS.has(node.name)) {
        parts.push(' ');
        stack.push(BLOCK_END);
      }
    }
    const children = childrenOf(node);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return parts.join('').replace(/\s+/g, ' ').trim();
}

export function attr(el: Element, name: string): string | undefined {
  const value = el.attribs[name];
  return value === undefined ? undefined : value;
}

export function findFirst(root: AnyNode, test: (el: Element) => boolean): Element | undefined {
  let found: Element | undefined;
  walk(root, (node) => {
    if (found) return false;
    if (isElement(node) && test(node)) {
      found = node;
      return false;
    }
  });
  return found;
}

export function findAll(root: AnyNode, test: (el: Element) => boolean): Element[] {
  const found: Element[] = [];
  walk(root, (node) => {
    if (isElement(node) && test(node)) found.push(node);
  });
  return found;
}

export function bodyOf(doc: Document): Element | Document {
  return findFirst(doc, (el) => el.name === 'body') ?? doc;
}

/** Removes the given nodes in one pass over their parents (splicing one by one is quadratic). */
export function removeNodes(nodes: Iterable<AnyNode>): void {
  const byParent = new Map<AnyNode, Set<AnyNode>>();
  for (const node of nodes) {
    if (!node.parent) continue;
    let set = byParent.get(node.parent);
    if (!set) byParent.set(node.parent, (set = new Set()));
    set.add(node);
  }
  for (const [parent, drop] of byParent) {
    const kept = childrenOf(parent).filter((c) => !drop.has(c));
    (parent as Element).children = kept as Element['children'];
    for (let i = 0; i < kept.length; i++) {
      kept[i].prev = kept[i - 1] ?? null;
      kept[i].next = kept[i + 1] ?? null;
    }
    for (const node of drop) node.parent = null;
  }
}
