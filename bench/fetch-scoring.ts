// Scoring of the two quality sets under ../shared/data, as their READMEs define it.
// Used by the quality tests, the bench and the iteration script (bench/fetch-quality-main.ts).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `../shared/data` seen from the repository root; the compiled file lives two or three levels below it. */
export function sharedDataDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json'))) {
      const data = resolve(dir, '..', 'shared', 'data');
      return existsSync(data) ? data : undefined;
    }
    dir = dirname(dir);
  }
  return undefined;
}

// ---------------------------------------------------------------- WCXB (markdown quality)

export interface WcxbPage {
  id: string;
  pageType: string;
  url: string;
  html: string;
  truth: string;
}

export function loadWcxbPages(dataDir: string): WcxbPage[] {
  const root = join(dataDir, 'wcxb-dev');
  const pages = JSON.parse(readFileSync(join(root, 'pages.json'), 'utf8')) as Record<string, { page_type: string }>;
  return Object.keys(pages)
    .sort()
    .map((id) => {
      const truth = JSON.parse(readFileSync(join(root, 'ground-truth', `${id}.json`), 'utf8')) as {
        url: string;
        ground_truth: { main_content?: string };
      };
      return {
        id,
        pageType: pages[id].page_type,
        url: truth.url,
        html: gunzipSync(readFileSync(join(root, 'html', `${id}.html.gz`))).toString('utf8'),
        // One page of the set has no main_content; it is scored against the empty text (F1 0), the strict reading.
        truth: truth.ground_truth.main_content ?? '',
      };
    });
}

/** Markdown → the plain text the benchmark compares: link/image targets, emphasis and escapes gone. */
export function markdownToPlainText(markdown: string): string {
  return markdown
    .replace(/^\s*(```|~~~)[^\n]*$/gm, '')
    .replace(/!\[([^\]]*)\]\((?:<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+"[^"]*")?\)/g, process.env.NOALT ? '' : '$1')
    .replace(/\]\((?:<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+"[^"]*")?\)/g, ']')
    .replace(/<(?:https?|mailto):[^>\s]*>/g, '')
    .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}_]|$)/gu, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, '$1');
}

export function tokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

export interface Prf {
  precision: number;
  recall: number;
  f1: number;
}

/** Word-level F1 over token multisets. */
export function wordF1(predicted: string, truth: string): Prf {
  const pred = tokens(predicted);
  const gold = tokens(truth);
  // An empty ground truth (single-page apps whose content is not in the HTML) scores 0 whatever
  // the extractor says: the strict reading of the benchmark's rule.
  if (pred.length === 0 || gold.length === 0) return { precision: 0, recall: 0, f1: 0 };
  const counts = new Map<string, number>();
  for (const t of gold) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of pred) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      common++;
      counts.set(t, left - 1);
    }
  }
  const precision = common / pred.length;
  const recall = common / gold.length;
  return { precision, recall, f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall) };
}

export interface PageScore extends Prf {
  id: string;
  pageType: string;
}

export interface WcxbReport {
  pages: PageScore[];
  meanF1: number;
  byType: Record<string, { pages: number; f1: number; precision: number; recall: number }>;
}

export function summarise(pages: PageScore[]): WcxbReport {
  const byType: WcxbReport['byType'] = {};
  for (const p of pages) {
    const t = (byType[p.pageType] ??= { pages: 0, f1: 0, precision: 0, recall: 0 });
    t.pages++;
    t.f1 += p.f1;
    t.precision += p.precision;
    t.recall += p.recall;
  }
  for (const t of Object.values(byType)) {
    t.f1 /= t.pages;
    t.precision /= t.pages;
    t.recall /= t.pages;
  }
  return { pages, meanF1: pages.reduce((s, p) => s + p.f1, 0) / Math.max(1, pages.length), byType };
}

export function formatWcxbReport(name: string, report: WcxbReport): string {
  const rows = Object.entries(report.byType)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, t]) => `  ${type.padEnd(14)} ${String(t.pages).padStart(4)}  F1 ${t.f1.toFixed(3)}  P ${t.precision.toFixed(3)}  R ${t.recall.toFixed(3)}`);
  return [`${name}: mean F1 ${report.meanF1.toFixed(3)} over ${report.pages.length} pages`, ...rows].join('\n');
}

// ---------------------------------------------------------------- product pages (JSON quality)

export interface ProductPage {
  id: string;
  url: string;
  html: string;
  truth: Partial<Record<ProductField, string[]>>;
}

export const PRODUCT_FIELDS = ['price', 'sku', 'availability', 'brand'] as const;
export type ProductField = (typeof PRODUCT_FIELDS)[number];

/** The schema the quality bar is defined with: price (number), sku, availability, brand. */
export const PRODUCT_SCHEMA = {
  type: 'object',
  properties: {
    price: { type: 'number' },
    sku: { type: 'string' },
    availability: { type: 'string' },
    brand: { type: 'string' },
  },
} as const;

export function loadProductPages(dataDir: string): ProductPage[] {
  const root = join(dataDir, 'product-dev');
  const truth = JSON.parse(readFileSync(join(root, 'ground-truth.json'), 'utf8')) as Record<string, Record<string, string[] | string>>;
  const files = new Set(readdirSync(join(root, 'html')));
  return Object.keys(truth)
    .sort()
    .filter((id) => files.has(`${id}.html.gz`))
    .map((id) => {
      const t = truth[id];
      const fields: ProductPage['truth'] = {};
      for (const f of PRODUCT_FIELDS) {
        const v = t[f];
        if (Array.isArray(v) && v.length > 0) fields[f] = v;
      }
      return {
        id,
        url: String(t.url),
        html: gunzipSync(readFileSync(join(root, 'html', `${id}.html.gz`))).toString('utf8'),
        truth: fields,
      };
    });
}

function fieldMatches(field: ProductField, predicted: unknown, accepted: string[]): boolean {
  if (field === 'price') {
    const n = typeof predicted === 'number' ? predicted : Number(predicted);
    return Number.isFinite(n) && accepted.some((a) => Math.abs(Number(a) - n) < 1e-6);
  }
  const s = String(predicted).trim();
  return accepted.some((a) => a.trim() === s);
}

export interface FieldScore extends Prf {
  field: ProductField;
  predicted: number;
  correct: number;
  expected: number;
}

/** Per field: correct / predicted, correct / pages having the field. */
export function scoreProducts(pages: ProductPage[], predictions: Map<string, Record<string, unknown>>): FieldScore[] {
  return PRODUCT_FIELDS.map((field) => {
    let predicted = 0;
    let correct = 0;
    let expected = 0;
    for (const page of pages) {
      const accepted = page.truth[field];
      const value = predictions.get(page.id)?.[field];
      if (accepted) expected++;
      if (value === undefined || value === null || value === '') continue;
      predicted++;
      if (accepted && fieldMatches(field, value, accepted)) correct++;
    }
    const precision = predicted ? correct / predicted : 0;
    const recall = expected ? correct / expected : 0;
    const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
    return { field, predicted, correct, expected, precision, recall, f1 };
  });
}

export function formatProductReport(name: string, scores: FieldScore[]): string {
  return [
    `${name}:`,
    ...scores.map(
      (s) =>
        `  ${s.field.padEnd(13)} F1 ${s.f1.toFixed(3)}  P ${s.precision.toFixed(3)}  R ${s.recall.toFixed(3)}  (${s.correct}/${s.predicted} predicted, ${s.expected} expected)`,
    ),
  ].join('\n');
}
