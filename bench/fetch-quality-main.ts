// Iteration script for the extractors: scores the quality sets and lists the weakest pages.
// node dist/bench/fetch-quality-main.js [markdown|readability|json] [--worst N] [--only ID,ID] [--type T] [--show ID] [--tuning JSON]
import { convertDocument } from '../src/fetch/convert/convert-document.js';
import { htmlToMarkdown } from '../src/fetch/convert/html-to-markdown.js';
import { DEFAULT_TUNING } from '../src/fetch/convert/main-content.js';
import { readabilityMarkdown } from './fetch-baseline.js';
import {
  PRODUCT_SCHEMA,
  formatProductReport,
  formatWcxbReport,
  loadProductPages,
  loadWcxbPages,
  markdownToPlainText,
  scoreProducts,
  sharedDataDir,
  summarise,
  wordF1,
  type PageScore,
} from './fetch-scoring.js';

const args = process.argv.slice(2);
const mode = args[0] ?? 'markdown';
const option = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

const dataDir = sharedDataDir();
if (!dataDir) throw new Error('../shared/data is missing');

if (mode === 'json') {
  const pages = loadProductPages(dataDir);
  const predictions = new Map<string, Record<string, unknown>>();
  const show = option('--show');
  for (const page of pages) {
    const result = convertDocument({ format: 'json', body: page.html, contentType: 'text/html', url: page.url, schema: PRODUCT_SCHEMA });
    const content = result.content as Record<string, unknown>;
    predictions.set(page.id, content);
    if (show === 'all' || show === page.id) console.log(page.id.slice(0, 8), JSON.stringify(content), JSON.stringify(page.truth));
  }
  console.log(formatProductReport('product-dev', scoreProducts(pages, predictions)));
} else {
  const only = option('--only')?.split(',');
  const type = option('--type');
  const pages = loadWcxbPages(dataDir).filter((p) => (!only || only.includes(p.id)) && (!type || p.pageType === type));
  const tuning = { ...DEFAULT_TUNING, ...(JSON.parse(option('--tuning') ?? '{}') as object) };
  const scores: PageScore[] = [];
  const started = performance.now();
  for (const page of pages) {
    const markdown =
      mode === 'readability'
        ? readabilityMarkdown(page.html, page.url)
        : htmlToMarkdown(page.html, page.url, tuning);
    if (option('--show') === page.id) console.log(markdown);
    scores.push({ id: page.id, pageType: page.pageType, ...wordF1(markdownToPlainText(markdown), page.truth) });
  }
  const elapsed = performance.now() - started;
  console.log(formatWcxbReport(mode, summarise(scores)));
  console.log(`  ${(elapsed / pages.length).toFixed(1)} ms per page`);
  const worst = Number(option('--worst') ?? 0);
  for (const s of [...scores].sort((a, b) => a.f1 - b.f1).slice(0, worst)) {
    console.log(`  ${s.id} ${s.pageType.padEnd(13)} F1 ${s.f1.toFixed(3)} P ${s.precision.toFixed(3)} R ${s.recall.toFixed(3)}`);
  }
}
