// Turns a value found on the page into the type the caller's schema asks for: numbers out of
// prices ("1.234,56 €", "$1,234.56"), schema.org terms out of availability URLs and phrases,
// booleans, dates, absolute URLs, enum members. Undefined means "cannot be that type".

export interface ValueSchema {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  items?: ValueSchema;
  properties?: Record<string, ValueSchema>;
  [key: string]: unknown;
}

export function schemaTypes(schema: ValueSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties) return ['object'];
  if (schema.items) return ['array'];
  if (schema.enum) return [...new Set(schema.enum.map((v) => (v === null ? 'null' : typeof v)))];
  return ['string'];
}

const SCHEMA_ORG_TERM = /^https?:\/\/(?:www\.)?schema\.org\/([A-Za-z]+)\/?$/;

const AVAILABILITY_TERMS = [
  'InStock', 'OutOfStock', 'PreOrder', 'BackOrder', 'Discontinued', 'LimitedAvailability', 'SoldOut', 'InStoreOnly',
  'OnlineOnly', 'PreSale', 'MadeToOrder', 'Reserved',
];

/** schema.org availability from a URL, a term or a shop's phrase. */
export function normaliseAvailability(raw: string): string | undefined {
  const text = raw.trim();
  const term = SCHEMA_ORG_TERM.exec(text)?.[1] ?? text.replace(/^schema:/i, '');
  const exact = AVAILABILITY_TERMS.find((t) => t.toLowerCase() === term.toLowerCase().replace(/[\s_-]+/g, ''));
  if (exact) return exact === 'SoldOut' ? 'OutOfStock' : exact;
  const lower = text.toLowerCase();
  if (/\b(?:out of stock|sold out|unavailable|not available|currently unavailable|no stock|ausverkauft|nicht (?:lieferbar|verfügbar)|épuisé|rupture|agotado)\b/.test(lower)) return 'OutOfStock';
  if (/\bpre-?order\b/.test(lower)) return 'PreOrder';
  if (/\bback-?order/.test(lower)) return 'BackOrder';
  if (/\b(?:in stock|available|in-stock|instock|auf lager|lieferbar|verfügbar|en stock|disponible|op voorraad)\b/.test(lower)) return 'InStock';
  return undefined;
}

/** A number out of text such as "€ 1.234,56", "$1,234.56", "12,99", "1 299 kr". */
export function parseNumber(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw !== 'string') return undefined;
  // Machine-readable values (JSON-LD, content attributes) use a dot for decimals, always.
  if (/^\s*-?\d+(?:\.\d+)?\s*$/.test(raw)) return Number(raw);
  const match = /[-−]?\d[\d\s.,'’\u00a0\u202f]*/.exec(raw);
  if (!match) return undefined;
  let digits = match[0].replace(/[\s'’\u00a0\u202f]+(?=\d{3}(?:\D|$))/g, '').replace(/[\s\u00a0\u202f]+$/, '').replace(/[.,]+$/, '').replace('−', '-');
  if (/[\s]/.test(digits)) digits = digits.split(/\s/)[0];
  const lastDot = digits.lastIndexOf('.');
  const lastComma = digits.lastIndexOf(',');
  let normalised: string;
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const thousands = decimal === '.' ? ',' : '.';
    normalised = digits.split(thousands).join('').replace(decimal, '.');
  } else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? '.' : ',';
    const pieces = digits.split(sep);
    const tail = pieces[pieces.length - 1];
    // One separator followed by exactly three digits groups thousands; otherwise it is the decimal mark.
    normalised = pieces.length > 2 || tail.length === 3 ? pieces.join('') : `${pieces.slice(0, -1).join('')}.${tail}`;
  } else normalised = digits;
  const value = Number(normalised);
  return Number.isFinite(value) ? value : undefined;
}

export function parseBoolean(raw: unknown): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number') return raw !== 0;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim().toLowerCase();
  if (/^(?:true|yes|1|on|y)$/.test(text)) return true;
  if (/^(?:false|no|0|off|n)$/.test(text)) return false;
  const availability = normaliseAvailability(raw);
  if (availability) return availability === 'InStock' || availability === 'LimitedAvailability' || availability === 'OnlineOnly' || availability === 'InStoreOnly';
  return undefined;
}

export interface NormaliseContext {
  /** The semantic kind of the property (property-names.ts), if known. */
  kind?: string;
  /** Base for relative URLs. */
  base?: URL;
}

/** The value as one of the schema's types, or undefined. Objects and arrays are handled by the extractor. */
export function normaliseScalar(raw: unknown, schema: ValueSchema, context: NormaliseContext): unknown {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'object') {
    const obj = raw as Record<string, unknown>;
    // A schema.org object given where a scalar is wanted: its name or value says it.
    const inner = obj.name ?? obj.value ?? obj['@value'] ?? obj.url ?? obj['@id'] ?? obj.price;
    return inner === undefined || typeof inner === 'object' ? undefined : normaliseScalar(inner, schema, context);
  }
  const types = schemaTypes(schema);
  if (schema.enum) return matchEnum(raw, schema.enum, context);
  for (const type of types) {
    const value = asType(raw as string | number | boolean, type, schema, context);
    if (value !== undefined) return value;
  }
  return undefined;
}

function asType(raw: string | number | boolean, type: string, schema: ValueSchema, context: NormaliseContext): unknown {
  switch (type) {
    case 'number':
      return parseNumber(raw);
    case 'integer': {
      const n = parseNumber(raw);
      return n === undefined ? undefined : Math.round(n);
    }
    case 'boolean':
      return parseBoolean(raw);
    case 'string':
      return normaliseString(String(raw), schema, context);
    default:
      return undefined;
  }
}

function normaliseString(raw: string, schema: ValueSchema, context: NormaliseContext): string | undefined {
  const text = raw.replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  if (context.kind === 'availability') return normaliseAvailability(text);
  if (/^\$[a-z_]+$|\{\{|\}\}|\$\{/i.test(text)) return undefined; // an unfilled template placeholder
  if (context.kind === 'sku' || context.kind === 'gtin' || context.kind === 'mpn') return productCode(text);
  if (context.kind === 'brand' && (text.length > 60 || text.split(' ').length > 6)) return undefined;
  const term = SCHEMA_ORG_TERM.exec(text)?.[1];
  if (term) return term;
  if (schema.format === 'uri' || schema.format === 'url' || schema.format === 'iri' || context.kind === 'url' || context.kind === 'image') {
    try {
      return new URL(text, context.base).href;
    } catch {
      return schema.format ? undefined : text;
    }
  }
  if (schema.format === 'date-time' || schema.format === 'date') {
    const time = Date.parse(text);
    if (Number.isNaN(time)) return undefined;
    const iso = new Date(time).toISOString();
    return schema.format === 'date' ? iso.slice(0, 10) : iso;
  }
  return text;
}

/** A product code out of "Item # 418295" or "SKU: AB-12": one token with a digit, no sentence. */
function productCode(text: string): string | undefined {
  const bare = text.replace(/^[^:#]{0,30}[:#]\s*/, '').trim();
  if (/^[\p{L}\p{N}][\p{L}\p{N}._/-]{1,39}$/u.test(bare) && /\d/.test(bare)) return bare;
  return undefined;
}

function matchEnum(raw: unknown, options: unknown[], context: NormaliseContext): unknown {
  if (options.includes(raw)) return raw;
  const text = String(raw).trim();
  const candidates = [text, SCHEMA_ORG_TERM.exec(text)?.[1], context.kind === 'availability' ? normaliseAvailability(text) : undefined];
  for (const candidate of candidates) {
    if (!candidate) continue;
    const found = options.find((o) => typeof o === 'string' && o.toLowerCase() === candidate.toLowerCase());
    if (found !== undefined) return found;
  }
  const n = parseNumber(text);
  if (n !== undefined && options.includes(n)) return n;
  const b = parseBoolean(text);
  if (b !== undefined && options.includes(b)) return b;
  return undefined;
}
