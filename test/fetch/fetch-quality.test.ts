// Quality bars of the issue, on the shared dev sets (../shared/data from the repository root):
// markdown word-level F1 over the 360 WCXB pages, and price F1 of JSON extraction on product pages.
import assert from 'node:assert/strict';
import { convertDocument } from '../../src/fetch/convert/convert-document.js';
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
} from '../../bench/fetch-scoring.js';

const dataDir = sharedDataDir();

describe('fetch quality on the dev sets', function () {
  this.timeout(180_000);

  before(function () {
    if (!dataDir) {
      console.warn('SKIPPED fetch quality tests: ../shared/data (WCXB and product dev sets) is not next to the repository');
      this.skip();
    }
  });

  it('markdown: mean word-level F1 >= 0.80 over the 360 WCXB dev pages', () => {
    const pages = loadWcxbPages(dataDir!);
    assert.equal(pages.length, 360);
    const scores = pages.map((page) => {
      const markdown = convertDocument({ format: 'markdown', body: page.html, contentType: 'text/html', url: page.url }).content as string;
      return { id: page.id, pageType: page.pageType, ...wordF1(markdownToPlainText(markdown), page.truth) };
    });
    const report = summarise(scores);
    console.log(formatWcxbReport('    WCXB dev markdown', report));
    assert.ok(report.meanF1 >= 0.8, `mean F1 ${report.meanF1.toFixed(3)} is below 0.80`);
  });

  it('json: price F1 >= 0.75 on the product dev pages (schema: price, sku, availability, brand)', () => {
    const pages = loadProductPages(dataDir!);
    const predictions = new Map(
      pages.map((page) => [
        page.id,
        convertDocument({ format: 'json', body: page.html, contentType: 'text/html', url: page.url, schema: PRODUCT_SCHEMA }).content as Record<string, unknown>,
      ]),
    );
    const scores = scoreProducts(pages, predictions);
    console.log(formatProductReport('    product dev', scores));
    const price = scores.find((s) => s.field === 'price')!;
    assert.ok(price.f1 >= 0.75, `price F1 ${price.f1.toFixed(3)} is below 0.75`);
  });
});
