// The structured data a page carries about itself: JSON-LD, microdata and <meta> tags.
// JSON-LD and microdata become plain objects ("entities") with an `@type`.
import { isElement, isText, walk, type AnyNode, type Document, type Element } from '../convert/dom.js';

export type Entity = Record<string, unknown> & { '@type'?: string | string[] };

export interface StructuredData {
  /** Every typed object of the page, outermost first, nested ones too. */
  entities: Entity[];
  /** <meta> values by lower-cased name/property/itemprop, in page order. */
  meta: Map<string, string[]>;
}

export function collectStructuredData(doc: Document): StructuredData {
  const roots: unknown[] = [];
  const meta = new Map<string, string[]>();
  walk(doc, (node) => {
    if (!isElement(node)) return;
    if (node.name === 'script' && /ld\+json/i.test(node.attribs.type ?? '')) {
      const parsed = parseJsonLd(scriptText(node));
      if (parsed !== undefined) roots.push(parsed);
      return false;
    }
    if (node.name === 'meta') {
      const key = (node.attribs.property ?? node.attribs.name ?? node.attribs.itemprop)?.trim().toLowerCase();
      const content = node.attribs.content;
      if (key && content !== undefined && content.trim() !== '') {
        const list = meta.get(key) ?? [];
        list.push(content.trim());
        meta.set(key, list);
      }
    }
    if (node.attribs.itemscope !== undefined && !isInsideItemscope(node)) {
      roots.push(microdataItem(node));
      return false;
    }
  });
  const entities: Entity[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 12 || value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const v of value) visit(v, depth + 1);
      return;
    }
    const obj = value as Entity;
    if (obj['@type'] !== undefined) entities.push(obj);
    for (const [key, v] of Object.entries(obj)) if (key !== '@context') visit(v, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  return { entities, meta };
}

/** The type names of an entity, without vocabulary prefixes: "Product", "Offer". */
export function typesOf(entity: Entity): string[] {
  const raw = entity['@type'];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.filter((t): t is string => typeof t === 'string').map((t) => t.replace(/^.*[/#:]/, ''));
}

function scriptText(el: Element): string {
  return el.children
    .filter(isText)
    .map((t) => t.data)
    .join('');
}

/** Lenient JSON-LD: strips HTML comments and CDATA markers, and trailing commas, that pages leave in. */
function parseJsonLd(text: string): unknown {
  const cleaned = text
    .replace(/^\s*(?:<!--|\/\/\s*<!\[CDATA\[)/, '')
    .replace(/(?:-->|\/\/\s*\]\]>)\s*$/, '')
    .trim();
  if (!cleaned) return undefined;
  try {
    return JSON.parse(cleaned);
  } catch {
    try {
      return JSON.parse(cleaned.replace(/,\s*([}\]])/g, '$1').replace(/[\u0000-\u001f]+/g, ' '));
    } catch {
      return undefined;
    }
  }
}

function isInsideItemscope(el: Element): boolean {
  for (let p = el.parent; p && isElement(p); p = p.parent) if (p.attribs.itemscope !== undefined) return true;
  return false;
}

/** A microdata item as an object: itemprop names to values, nested items as nested objects. */
function microdataItem(scope: Element): Entity {
  const item: Entity = {};
  const type = scope.attribs.itemtype?.trim().split(/\s+/)[0];
  if (type) item['@type'] = type.replace(/^.*[/#]/, '');
  const stack: AnyNode[] = [...scope.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElement(node)) continue;
    const names = node.attribs.itemprop?.trim().split(/\s+/).filter((n) => n !== '');
    const nestedScope = node.attribs.itemscope !== undefined;
    if (names?.length) {
      const value = nestedScope ? microdataItem(node) : microdataValue(node);
      for (const name of names) {
        const existing = item[name];
        item[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
      }
    }
    if (nestedScope) continue;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return item;
}

function microdataValue(el: Element): string {
  const a = el.attribs;
  if (a.content !== undefined) return a.content.trim();
  if (el.name === 'meta') return '';
  if ((el.name === 'a' || el.name === 'link' || el.name === 'area') && a.href) return a.href;
  if ((el.name === 'img' || el.name === 'source' || el.name === 'video' || el.name === 'audio') && a.src) return a.src;
  if (el.name === 'time' && a.datetime) return a.datetime;
  if ((el.name === 'data' || el.name === 'meter') && a.value !== undefined) return a.value;
  const parts: string[] = [];
  walk(el, (n) => {
    if (isText(n)) parts.push(n.data);
    else if (isElement(n) && (n.name === 'script' || n.name === 'style')) return false;
  });
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}
