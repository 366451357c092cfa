// How a caller's property name is recognised in the page: its words, and the names the usual
// vocabularies (schema.org, OpenGraph, shop markup, label text) give the same thing.

/** `publishedDate`, `published_date`, `Published date` → "publisheddate". */
export function compactName(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** `publishedDate` → ["published", "date"]. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
}

/** Semantic kinds with their well-known names (compacted). */
const KINDS: Record<string, string[]> = {
  price: ['price', 'lowprice', 'saleprice', 'offerprice', 'currentprice', 'finalprice', 'priceamount', 'amount', 'cost', 'specialprice', 'productprice', 'pricevalue', 'preis', 'prix', 'precio', 'prezzo', 'prijs', 'preço', 'cena', 'цена', '价格', '価格', '가격'],
  currency: ['currency', 'pricecurrency', 'currencycode', 'pricecurrencycode'],
  availability: ['availability', 'stock', 'stockstatus', 'instock', 'stockavailability', 'inventorystatus', 'productavailability', 'verfügbarkeit', 'disponibilité', 'disponibilidad', 'disponibilità', 'beschikbaarheid', 'dostępność', 'наличие'],
  sku: ['sku', 'productid', 'productcode', 'itemnumber', 'itemno', 'articlenumber', 'artnr', 'partnumber', 'itemcode', 'productnumber', 'modelnumber', 'skunumber', 'asin', 'articleno', 'itemid', 'productsku', 'artikelnummer', 'artnr', 'référence', 'referencia', 'riferimento', 'codice', 'kodproduktu', 'артикул', '商品编号', '品番', '型番'],
  brand: ['brand', 'brandname', 'manufacturer', 'make', 'productbrand', 'marke', 'hersteller', 'marque', 'fabricant', 'marca', 'fabricante', 'merk', 'producent', 'бренд', 'производитель', '品牌', 'ブランド', '브랜드'],
  gtin: ['gtin', 'gtin13', 'gtin12', 'gtin14', 'gtin8', 'ean', 'upc', 'isbn', 'barcode'],
  mpn: ['mpn', 'manufacturerpartnumber'],
  name: ['name', 'title', 'headline', 'productname', 'producttitle'],
  description: ['description', 'summary', 'abstract', 'articlebody', 'text'],
  image: ['image', 'imageurl', 'thumbnail', 'thumbnailurl', 'photo', 'picture'],
  url: ['url', 'link', 'href', 'canonical', 'permalink'],
  author: ['author', 'creator', 'byline', 'writer'],
  datePublished: ['datepublished', 'publishedtime', 'publishdate', 'published', 'date', 'pubdate', 'releasedate', 'uploaddate', 'datecreated'],
  dateModified: ['datemodified', 'modifiedtime', 'updated', 'lastmodified', 'updatedtime'],
  rating: ['rating', 'ratingvalue', 'aggregaterating', 'stars', 'score', 'averagerating'],
  reviewCount: ['reviewcount', 'ratingcount', 'reviews', 'numberofreviews'],
  category: ['category', 'categories', 'section', 'articlesection', 'breadcrumb'],
  keywords: ['keywords', 'tags', 'tag'],
  language: ['language', 'inlanguage', 'lang', 'locale'],
  color: ['color', 'colour'],
  condition: ['condition', 'itemcondition'],
};

export interface PropertyProfile {
  /** The caller's property name. */
  name: string;
  /** The semantic kind when the name (or description) is a known one. */
  kind?: string;
  /** Compacted names that count as this property. */
  aliases: Set<string>;
  /** The words of the name (and title), to match label text loosely. */
  words: string[];
}

export function profileProperty(name: string, schema: { [key: string]: unknown }): PropertyProfile {
  const compact = compactName(name);
  const title = typeof schema.title === 'string' ? schema.title : '';
  const aliases = new Set<string>([compact]);
  if (title) aliases.add(compactName(title));
  let kind: string | undefined;
  for (const [k, names] of Object.entries(KINDS)) {
    if (compactName(k) === compact || names.includes(compact) || (title && names.includes(compactName(title)))) {
      kind = k;
      break;
    }
  }
  if (!kind) {
    // "productPrice", "salePriceEur": the last known word decides.
    const words = nameWords(name);
    for (let i = words.length - 1; i >= 0 && !kind; i--) {
      for (const [k, names] of Object.entries(KINDS)) if (names.includes(words[i]) || compactName(k) === words[i]) kind = k;
    }
  }
  if (kind) {
    aliases.add(compactName(kind));
    for (const n of KINDS[kind]) aliases.add(n);
  }
  return { name, kind, aliases, words: [...new Set([...nameWords(name), ...nameWords(title)])] };
}
