// Deterministic, schema-driven extraction (no language model). For each property of the caller's
// schema, in this order, the first value that can be normalised to the property's type wins:
//   1. the property's x-extract hint (CSS selector / attribute / regex),
//   2. the page's main JSON-LD or microdata entity (the one that fills most properties), nested
//      objects included (offers.price, brand.name),
//   3. <meta> tags (OpenGraph, product:*, twitter:*, itemprop),
//   4. the other structured entities of the page,
//   5. "Label: value" pairs (two-cell table rows, dt/dd, "SKU: 123" text),
//   6. elements whose class/id/itemprop/data-test name carries the property's name,
//   7. what the property's kind implies: title/h1 for a name, the first paragraph for a description,
//      the page URL for a url, a currency amount in the page for a price, the product code in the
//      URL for a sku, InStock when the page offers an add-to-cart button.
// Arrays of objects come from structured lists, tables whose headers name the item properties,
// or repeated elements; arrays of scalars from structured arrays, or the list under a heading
// that names the property.
import { load, type CheerioAPI } from 'cheerio';
import { findAll, findFirst, isElement, textOf, walk, type Document, type Element } from '../convert/dom.js';
import { cleanPage } from '../convert/main-content.js';
import { absoluteImage, documentBase, imageSource } from '../convert/urls.js';
import { collectStructuredData, typesOf, type Entity, type StructuredData } from './structured-data.js';
import { compactName, profileProperty, type PropertyProfile } from './property-names.js';
import { normaliseScalar, parseNumber, schemaTypes, type ValueSchema } from './coerce-value.js';
import { HINT_KEYWORD, applyRegex, parseHint } from './extraction-hint.js';
import { elementValue, scopeOf, type PageScope } from './page-scope.js';

const MAX_ARRAY_ITEMS = 1000;

/** Entity types that describe the site or the page furniture rather than the page's subject. */
const FURNITURE_TYPES = new Set(['WebSite', 'BreadcrumbList', 'SearchAction', 'ListItem', 'SiteNavigationElement', 'WPHeader', 'WPFooter', 'WPSideBar', 'ImageObject', 'EntryPoint', 'ReadAction', 'ContactPoint', 'PostalAddress', 'Country', 'GeoCoordinates', 'PropertyValue']);

interface Page {
  /** The page's own URL (the final URL of the fetch). */
  url?: URL;
  doc: Document;
  $: CheerioAPI;
  base?: URL;
  data: StructuredData;
  /** The cleaned page (chrome removed): where plain-sight facts are read. */
  scope: PageScope;
  title?: string;
}

export function extractBySchema(html: string, parse: (html: string) => Document, url: string | undefined, schema: ValueSchema): unknown {
  const doc = parse(html);
  const data = collectStructuredData(doc);
  const titleEl = findFirst(doc, (el) => el.name === 'title');
  const page: Page = {
    url: safeUrl(url),
    doc,
    $: load(doc),
    base: documentBase(doc, url),
    data,
    scope: scopeOf(cleanPage(parse(html))),
    title: titleEl ? textOf(titleEl) : undefined,
  };
  return extractValue(page, schema, '', { scope: page.scope, entity: pickEntity(data.entities, schema), topLevel: true });
}

/** Extraction from a JSON document: the caller's properties matched to its keys, at any depth. */
export function extractFromJson(value: unknown, schema: ValueSchema, url: string | undefined): unknown {
  const entity = (Array.isArray(value) ? { items: value } : typeof value === 'object' && value ? value : { value }) as Entity;
  const types = schemaTypes(schema);
  if (types.includes('array') && Array.isArray(value)) {
    return value.slice(0, MAX_ARRAY_ITEMS).map((item) => fromEntityOnly(item as Entity, schema.items ?? {}, safeUrl(url))).filter((v) => v !== undefined);
  }
  return fromEntityOnly(entity, schema, safeUrl(url));
}

function fromEntityOnly(entity: Entity, schema: ValueSchema, base: URL | undefined): unknown {
  const types = schemaTypes(schema);
  if (!types.includes('object') || !schema.properties) return normaliseScalar(entity, schema, { base });
  const out: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(schema.properties)) {
    const profile = profileProperty(name, sub);
    const subTypes = schemaTypes(sub);
    for (const candidate of subTypes.includes('array') ? listCandidates(entity, profile) : entityCandidates(entity, profile)) {
      let value: unknown;
      if (subTypes.includes('object') && candidate && typeof candidate === 'object' && !Array.isArray(candidate)) value = fromEntityOnly(candidate as Entity, sub, base);
      else if (subTypes.includes('array')) {
        const list = Array.isArray(candidate) ? candidate : [candidate];
        const items = list.map((c) => fromEntityOnly(c as Entity, sub.items ?? {}, base)).filter((v) => v !== undefined);
        value = items.length ? items : undefined;
      } else value = normaliseScalar(candidate, sub, { kind: profile.kind, base });
      if (value !== undefined) {
        out[name] = value;
        break;
      }
    }
  }
  return out;
}

interface Scope {
  scope: PageScope;
  entity?: Entity;
  /** True at the top of the page (not inside one item of an array). */
  topLevel: boolean;
}

function extractValue(page: Page, schema: ValueSchema, path: string, at: Scope): unknown {
  const types = schemaTypes(schema);
  if (types.includes('object') && schema.properties) return extractObject(page, schema, path, at);
  if (types.includes('array')) return extractArray(page, schema, path, at, profileProperty(lastSegment(path) || 'items', schema));
  return extractScalar(page, schema, profileProperty(lastSegment(path) || 'value', schema), path, at);
}

function extractObject(page: Page, schema: ValueSchema, path: string, at: Scope): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    const subPath = path ? `${path}.${name}` : name;
    const profile = profileProperty(name, sub);
    const types = schemaTypes(sub);
    let value: unknown;
    if (types.includes('object') && sub.properties) {
      const nested = at.entity ? entityCandidates(at.entity, profile).find((c): c is Entity => !!c && typeof c === 'object' && !Array.isArray(c)) : undefined;
      const hinted = hintElements(page, sub, at, subPath)[0];
      const result = extractObject(page, sub, subPath, {
        scope: hinted ? scopeOf(hinted) : at.scope,
        entity: nested ?? (hinted ? undefined : at.entity),
        topLevel: at.topLevel && !hinted,
      });
      value = Object.keys(result).length ? result : undefined;
    } else if (types.includes('array')) {
      value = extractArray(page, sub, subPath, at, profile);
    } else {
      value = extractScalar(page, sub, profile, subPath, at);
    }
    if (value !== undefined) out[name] = value;
    else if (types.includes('null')) out[name] = null;
  }
  return out;
}

function extractScalar(page: Page, schema: ValueSchema, profile: PropertyProfile, path: string, at: Scope): unknown {
  const context = { kind: profile.kind, base: page.base };
  for (const candidate of scalarCandidates(page, schema, profile, path, at)) {
    const value = normaliseScalar(candidate, schema, context);
    if (value !== undefined) return value;
  }
  return undefined;
}

function* scalarCandidates(page: Page, schema: ValueSchema, profile: PropertyProfile, path: string, at: Scope): Generator<unknown> {
  const hint = parseHint(schema[HINT_KEYWORD], path);
  const wantUrl = profile.kind === 'url' || profile.kind === 'image' || schema.format === 'uri';
  if (hint) {
    if (hint.selector) {
      for (const el of hintElements(page, schema, at, path)) {
        const raw = readAttribute(el, hint.attribute, wantUrl);
        const value = raw === undefined ? undefined : applyRegex(raw, hint.regex);
        if (value !== undefined) yield value;
      }
    } else {
      const value = applyRegex(textOf(at.topLevel ? page.doc : at.scope.root), hint.regex);
      if (value !== undefined) yield value;
    }
  }
  if (at.entity) yield* entityCandidates(at.entity, profile);
  if (at.topLevel) {
    yield* metaCandidates(page.data.meta, profile);
    for (const entity of page.data.entities) if (entity !== at.entity && !isFurniture(entity)) yield* entityCandidates(entity, profile);
  }
  // The page's own title or headline is its h1/<title> (kindFallbacks), not whatever a table or
  // list labels "Name" or "Title" — unless that label is the property's very name.
  const pageTitle = at.topLevel && profile.kind === 'name';
  yield* labelCandidates(at.scope, profile, pageTitle);
  for (const el of namedElements(at.scope, profile)) {
    const value = elementValue(el, wantUrl);
    if (value !== undefined) yield value;
  }
  yield* kindFallbacks(page, profile, at);
  if (pageTitle) yield* labelCandidates(at.scope, profile, false);
}

/** Values of keys matching the property, shallow ones first; for a price, offers first. */
function entityCandidates(entity: Entity, profile: PropertyProfile): unknown[] {
  const found: { value: unknown; depth: number; rank: number }[] = [];
  const visit = (value: unknown, depth: number, underOffer: boolean): void => {
    if (depth > 4 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const v of value.slice(0, 50)) visit(v, depth, underOffer);
      return;
    }
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (key.startsWith('@') && key !== '@id') continue;
      const compact = compactName(key);
      const offer = underOffer || compact === 'offers' || compact === 'offer';
      if (profile.aliases.has(compact)) {
        const rank = compact === compactName(profile.name) ? 0 : 1;
        found.push({ value: v, depth, rank: profile.kind === 'price' && !offer ? rank + 2 : rank });
      }
      if (typeof v === 'object' && v !== null && !(key === 'review' || key === 'reviews' || key === 'isRelatedTo' || key === 'isSimilarTo')) visit(v, depth + 1, offer);
    }
  };
  visit(entity, 0, false);
  found.sort((a, b) => a.rank - b.rank || a.depth - b.depth);
  return found.flatMap((f) => (Array.isArray(f.value) && f.value.length > 0 && typeof f.value[0] !== 'object' ? [f.value[0], f.value] : [f.value]));
}

/** For an array property: the entity's lists before its single values (entityCandidates offers a list's first item before the list, for scalar properties). */
function listCandidates(entity: Entity, profile: PropertyProfile): unknown[] {
  const candidates = entityCandidates(entity, profile);
  return [...candidates.filter((c) => Array.isArray(c)), ...candidates.filter((c) => !Array.isArray(c))];
}

function* metaCandidates(meta: Map<string, string[]>, profile: PropertyProfile): Generator<string> {
  for (const [key, values] of meta) {
    const bare = compactName(key.replace(/^(?:og|product|twitter|article|book|music|video|profile|business):/, ''));
    if (profile.aliases.has(bare) || profile.aliases.has(compactName(key))) yield* values;
  }
}

/**
 * Labels naming the property: exactly, or ending with one of its longer names ("eBay item number");
 * with ownNameOnly, just the label that is the property's name.
 */
function* labelCandidates(scope: PageScope, profile: PropertyProfile, ownNameOnly = false): Generator<string> {
  if (ownNameOnly) {
    yield* scope.labels.get(compactName(profile.name)) ?? [];
    return;
  }
  for (const alias of profile.aliases) yield* scope.labels.get(alias) ?? [];
  for (const [label, values] of scope.labels) {
    if (profile.aliases.has(label)) continue;
    for (const alias of profile.aliases) {
      if (alias.length >= 4 && label.endsWith(alias) && label.length <= alias.length + 12) {
        yield* values;
        break;
      }
    }
  }
}

function namedElements(scope: PageScope, profile: PropertyProfile): Element[] {
  const out: Element[] = [];
  for (const alias of profile.aliases) for (const el of scope.named.get(alias) ?? []) if (!out.includes(el)) out.push(el);
  return out;
}

function* kindFallbacks(page: Page, profile: PropertyProfile, at: Scope): Generator<unknown> {
  const root = at.scope.root;
  switch (profile.kind) {
    case 'name': {
      const heading = findFirst(root, (el) => el.name === 'h1') ?? findFirst(root, (el) => /^h[2-4]$/.test(el.name));
      if (heading) yield textOf(heading);
      if (!at.topLevel) {
        const link = findFirst(root, (el) => el.name === 'a' && textOf(el).length > 2);
        if (link) yield textOf(link);
      } else if (page.title) yield page.title;
      return;
    }
    case 'description': {
      if (at.topLevel) yield* page.data.meta.get('description') ?? [];
      const paragraph = findAll(root, (el) => el.name === 'p').map(textOf).find((t) => t.length > 40);
      if (paragraph) yield paragraph;
      return;
    }
    case 'url': {
      if (!at.topLevel) {
        const link = findFirst(root, (el) => el.name === 'a' && !!el.attribs.href);
        if (link) yield link.attribs.href;
      } else if (page.base) yield page.base.href;
      return;
    }
    case 'image': {
      const img = findFirst(root, (el) => el.name === 'img' && imageSource(el) !== undefined);
      if (img) yield absoluteImage(imageSource(img), page.base);
      return;
    }
    case 'price':
      yield* priceInText(root);
      return;
    case 'sku': {
      // Shops put the product's identifier in its URL (?sku=…, /product/…, …-579695999.html).
      if (at.topLevel && page.url) yield* codesInUrl(page.url);
      return;
    }
    case 'availability': {
      // A product page that offers to put the product in a cart has it in stock.
      if (!at.topLevel) return;
      const text = textOf(root).toLowerCase();
      if (/\b(?:out of stock|sold out|currently unavailable)\b/.test(text)) return;
      if (hasBuyButton(page.doc)) yield 'InStock';
      return;
    }
    case 'currency': {
      for (const text of priceInText(root)) {
        const symbol = /(US\$|CA\$|A\$|€|£|\$|¥|₹|₩|₽|CHF|kr|zł|R\$|USD|EUR|GBP|JPY|INR|AUD|CAD)/.exec(text)?.[1];
        if (symbol) yield CURRENCY_CODES[symbol] ?? symbol;
      }
      return;
    }
    default:
      return;
  }
}

const CODE_PARAMETERS = ['sku', 'pid', 'productid', 'product_id', 'itemid', 'item_id', 'item', 'id'];
const CODE_PATH_MARKERS = new Set(['item', 'items', 'p', 'product', 'products', 'prod', 'sku', 'id']);

/** Product codes in a URL: named query parameters, the segment after /p/, /item/, /product/…, a number ending the last segment. */
function codesInUrl(url: URL): string[] {
  const codes: string[] = [];
  const isCode = (v: string | null | undefined): v is string => !!v && /^[A-Za-z0-9][A-Za-z0-9._-]{2,39}$/.test(v) && /\d/.test(v);
  for (const [key, value] of url.searchParams) if (CODE_PARAMETERS.includes(key.toLowerCase()) && isCode(value)) codes.push(value);
  const segments = url.pathname.split('/').filter((s) => s !== '');
  segments.forEach((segment, i) => {
    if (i > 0 && CODE_PATH_MARKERS.has(segments[i - 1].toLowerCase()) && isCode(segment)) codes.push(segment);
  });
  const last = segments[segments.length - 1]?.replace(/\.(?:html?|php|aspx?)$/i, '');
  const tail = last?.split(/[-_]/).pop();
  if (isCode(tail) && /^\d{4,}$/.test(tail)) codes.push(tail);
  return codes;
}

const BUY_BUTTON = /^(?:add to (?:cart|bag|basket|trolley)|buy now|buy it now|add to shopping (?:cart|bag)|in den warenkorb|jetzt kaufen|ajouter au panier|añadir al carrito|agregar al carrito|aggiungi al carrello|in winkelwagen|toevoegen aan winkelwagen|dodaj do koszyka|lägg i varukorgen|læg i kurv|legg i handlekurven|lisää ostoskoriin|sepete ekle|в корзину|добавить в корзину|カートに入れる|加入購物車|加入购物车|장바구니 담기|comprar|adicionar ao carrinho|kaufen|acheter)\b/i;

function hasBuyButton(doc: Document): boolean {
  let found = false;
  walk(doc, (node) => {
    if (found) return false;
    if (!isElement(node)) return;
    if (node.name === 'script' || node.name === 'style' || node.name === 'template') return false;
    const label = node.name === 'button' || (node.name === 'a' && /cart|basket|buy/i.test(node.attribs.class ?? ''))
      ? textOf(node)
      : node.name === 'input' && (node.attribs.type === 'submit' || node.attribs.type === 'button')
        ? node.attribs.value ?? ''
        : undefined;
    if (label !== undefined && BUY_BUTTON.test(label.trim())) found = true;
  });
  return found;
}

const CURRENCY_CODES: Record<string, string> = { $: 'USD', US$: 'USD', CA$: 'CAD', A$: 'AUD', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR', '₩': 'KRW', '₽': 'RUB', 'R$': 'BRL', 'zł': 'PLN', kr: 'SEK' };

const PRICE_TEXT = /(?:(?:US\$|CA\$|A\$|R\$|[$€£¥₹₩₽]|CHF|USD|EUR|GBP)\s?\d[\d.,\s]*\d|\d[\d.,\s]*\d?\s?(?:€|£|\$|kr|zł|CHF|EUR|USD|GBP|руб|₽|лв|Kč|Ft|lei|RON|PLN|SEK|NOK|DKK))/;

/** Currency amounts in the text of the scope, in page order. */
function* priceInText(root: Element | Document): Generator<string> {
  const texts: string[] = [];
  walk(root, (node) => {
    if (texts.length > 5) return false;
    if (isElement(node) && (node.name === 'del' || node.name === 's' || node.name === 'strike')) return false;
    if (node.type === 'text') {
      const match = PRICE_TEXT.exec((node as { data: string }).data);
      if (match && parseNumber(match[0]) !== undefined) texts.push(match[0]);
    }
  });
  yield* texts;
}

function extractArray(page: Page, schema: ValueSchema, path: string, at: Scope, profile: PropertyProfile): unknown[] | undefined {
  const itemSchema = schema.items ?? {};
  const itemTypes = schemaTypes(itemSchema);
  const hint = parseHint(schema[HINT_KEYWORD], path);
  const itemIsObject = itemTypes.includes('object') && !!itemSchema.properties;
  const collect = (values: unknown[]): unknown[] | undefined => {
    const out = values.slice(0, MAX_ARRAY_ITEMS).filter((v) => v !== undefined && !(typeof v === 'object' && v !== null && Object.keys(v).length === 0));
    return out.length ? out : undefined;
  };
  if (hint?.selector) {
    const elements = hintElements(page, schema, at, path);
    const values = itemIsObject
      ? elements.map((el) => extractObject(page, itemSchema, `${path}[]`, { scope: scopeOf(el), topLevel: false }))
      : elements.map((el) => {
          const raw = readAttribute(el, hint.attribute, itemSchema.format === 'uri');
          const value = raw === undefined ? undefined : applyRegex(raw, hint.regex);
          return value === undefined ? undefined : normaliseScalar(value, itemSchema, { base: page.base });
        });
    const found = collect(values);
    if (found) return found;
  }
  if (itemIsObject) {
    const entities = itemEntities(page, at, profile, itemSchema);
    if (entities.length) {
      const found = collect(entities.map((e) => extractObject(page, itemSchema, `${path}[]`, { scope: emptyScope(), entity: e, topLevel: false })));
      if (found) return found;
    }
    // Tables whose header names item properties, and groups of repeated elements, compete on how
    // many of the item's properties their first items fill.
    const filled = (items: Record<string, unknown>[]): number =>
      items.slice(0, 3).reduce((sum, item) => sum + Object.keys(item).length, 0) / Math.min(3, Math.max(1, items.length));
    let best: Record<string, unknown>[] = [];
    let bestFill = 0;
    const consider = (items: Record<string, unknown>[]): void => {
      const fill = filled(items);
      if (fill > bestFill || (fill === bestFill && items.length > best.length)) {
        best = items;
        bestFill = fill;
      }
    };
    for (const rows of tableRows(at.scope.root, itemSchema)) consider(rows.map((row) => fromEntityOnly(row, itemSchema, page.base) as Record<string, unknown>));
    for (const group of repeatedGroups(at.scope.root)) {
      consider(group.slice(0, MAX_ARRAY_ITEMS).map((el) => extractObject(page, itemSchema, `${path}[]`, { scope: scopeOf(el), topLevel: false })));
    }
    return collect(best);
  }
  // Arrays of scalars.
  const context = { kind: profileProperty(profile.name, itemSchema).kind ?? profile.kind, base: page.base };
  const normalise = (values: unknown[]): unknown[] | undefined => collect(values.map((v) => normaliseScalar(v, itemSchema, context)));
  if (at.entity) {
    for (const candidate of listCandidates(at.entity, profile)) {
      const list = Array.isArray(candidate) ? candidate : typeof candidate === 'string' && profile.kind === 'keywords' ? candidate.split(',') : [candidate];
      const found = normalise(list);
      if (found) return found;
    }
  }
  if (at.topLevel) {
    for (const candidate of metaCandidates(page.data.meta, profile)) {
      const found = normalise(profile.kind === 'keywords' ? candidate.split(',') : [candidate]);
      if (found) return found;
    }
  }
  const list = listUnderHeading(at.scope.root, profile);
  if (list) return normalise(list);
  const named = namedElements(at.scope, profile);
  if (named.length) return normalise(named.map((el) => elementValue(el, itemSchema.format === 'uri')));
  return undefined;
}

/** Entities that look like items of the array: same type as each other, filling the item properties. */
function itemEntities(page: Page, at: Scope, profile: PropertyProfile, itemSchema: ValueSchema): Entity[] {
  if (at.entity) {
    for (const candidate of entityCandidates(at.entity, profile)) {
      if (Array.isArray(candidate) && candidate.some((c) => c && typeof c === 'object')) return candidate.filter((c): c is Entity => !!c && typeof c === 'object');
    }
  }
  if (!at.topLevel) return [];
  const props = Object.entries(itemSchema.properties ?? {}).map(([n, s]) => profileProperty(n, s));
  const byType = new Map<string, Entity[]>();
  for (const entity of page.data.entities) {
    if (isFurniture(entity)) continue;
    const item = (entity.item && typeof entity.item === 'object' ? entity.item : entity) as Entity;
    const filled = props.filter((p) => entityCandidates(item, p).length > 0).length;
    if (filled === 0 || filled < Math.min(2, props.length)) continue;
    const key = typesOf(item).join('/') || 'untyped';
    const list = byType.get(key) ?? [];
    if (!list.includes(item)) list.push(item);
    byType.set(key, list);
  }
  const groups = [...byType.values()].filter((g) => g.length >= 2).sort((a, b) => b.length - a.length);
  return groups[0] ?? [];
}

/** For each table whose header cells name at least one item property: its rows as entities. */
function tableRows(root: Element | Document, itemSchema: ValueSchema): Entity[][] {
  const props = Object.entries(itemSchema.properties ?? {}).map(([n, s]) => profileProperty(n, s));
  const tables: Entity[][] = [];
  for (const table of findAll(root, (el) => el.name === 'table')) {
    const rows = findAll(table, (el) => el.name === 'tr');
    if (rows.length < 2) continue;
    const cellsOf = (tr: Element): Element[] => tr.children.filter((c): c is Element => isElement(c) && (c.name === 'td' || c.name === 'th'));
    const header = cellsOf(rows[0]).map((c) => compactName(textOf(c)));
    const columns = header.map((h) => props.find((p) => p.aliases.has(h) || p.words.some((w) => h === w))?.name);
    if (!columns.some((c) => c !== undefined)) continue;
    tables.push(
      rows.slice(1).map((tr) => {
        const entity: Entity = {};
        cellsOf(tr).forEach((cell, i) => {
          const column = columns[i];
          if (!column) return;
          const link = findFirst(cell, (el) => el.name === 'a' && !!el.attribs.href);
          entity[column] = props.find((p) => p.name === column)?.kind === 'url' && link ? link.attribs.href : textOf(cell);
        });
        return entity;
      }),
    );
  }
  return tables;
}

/** The biggest groups of sibling elements sharing tag and class, each holding text: cards, rows, results. */
function repeatedGroups(root: Element | Document, keep = 5): Element[][] {
  const scored: { group: Element[]; score: number }[] = [];
  walk(root, (node) => {
    if (!('children' in node)) return;
    const groups = new Map<string, Element[]>();
    for (const child of node.children) {
      if (!isElement(child)) continue;
      const key = `${child.name}.${child.attribs.class ?? ''}`;
      const list = groups.get(key) ?? [];
      list.push(child);
      groups.set(key, list);
    }
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      const chars = group.reduce((sum, el) => sum + Math.min(textOf(el).length, 400), 0);
      if (chars > 0) scored.push({ group, score: chars * Math.log2(group.length + 1) });
    }
  });
  return scored
    .sort((a, b) => b.score - a.score)
    .slice(0, keep)
    .map((s) => s.group);
}

/** The items of the first list after a heading that names the property. */
function listUnderHeading(root: Element | Document, profile: PropertyProfile): string[] | undefined {
  const headings = findAll(root, (el) => /^h[1-6]$/.test(el.name) || el.name === 'dt' || el.name === 'strong');
  for (const heading of headings) {
    const words = compactName(textOf(heading));
    if (!profile.aliases.has(words) && !profile.words.some((w) => w.length > 2 && words.includes(w))) continue;
    for (let n: Element | null = heading; n; n = n.parent && isElement(n.parent) ? n.parent : null) {
      let sibling = n.next;
      while (sibling && !isElement(sibling)) sibling = sibling.next;
      if (sibling && isElement(sibling)) {
        const list = sibling.name === 'ul' || sibling.name === 'ol' ? sibling : findFirst(sibling, (el) => el.name === 'ul' || el.name === 'ol');
        if (list) return list.children.filter((c): c is Element => isElement(c) && c.name === 'li').map(textOf).filter((t) => t !== '');
        break;
      }
    }
  }
  return undefined;
}

/** The main entity: the non-furniture one that fills the most of the schema's properties. */
function pickEntity(entities: Entity[], schema: ValueSchema): Entity | undefined {
  if (!schema.properties) return undefined;
  const props = Object.entries(schema.properties).map(([n, s]) => profileProperty(n, s));
  let best: Entity | undefined;
  let bestFilled = 0;
  for (const entity of entities) {
    if (isFurniture(entity)) continue;
    const filled = props.filter((p) => entityCandidates(entity, p).length > 0).length;
    if (filled > bestFilled) {
      best = entity;
      bestFilled = filled;
    }
  }
  return best;
}

function isFurniture(entity: Entity): boolean {
  const types = typesOf(entity);
  return types.length > 0 && types.every((t) => FURNITURE_TYPES.has(t));
}

function hintElements(page: Page, schema: ValueSchema, at: Scope, path: string): Element[] {
  const hint = parseHint(schema[HINT_KEYWORD], path);
  if (!hint?.selector) return [];
  // At the top, hints are read against the whole page (not the cleaned one): what the caller names is reachable.
  const root = at.topLevel ? page.doc : at.scope.root;
  return page.$(root).find(hint.selector).toArray().filter(isElement).slice(0, MAX_ARRAY_ITEMS);
}

function readAttribute(el: Element, attribute: string | undefined, wantUrl: boolean): string | undefined {
  if (!attribute || attribute === 'text') return attribute === 'text' ? textOf(el) : elementValue(el, wantUrl);
  if (attribute === 'html') return load(el).html() ?? undefined;
  return el.attribs[attribute];
}

function emptyScope(): PageScope {
  return { root: { type: 'root', children: [] } as unknown as Document, labels: new Map(), named: new Map() };
}

function lastSegment(path: string): string {
  return path.replace(/\[\]$/, '').split('.').pop() ?? '';
}

function safeUrl(raw: string | undefined, base?: URL): URL | undefined {
  if (!raw) return undefined;
  try {
    return new URL(raw, base);
  } catch {
    return undefined;
  }
}
