// Fits the weights of the block model (src/fetch/convert/content-model.ts) on the WCXB dev pages:
// logistic regression of "share of the block's word trigrams found in the ground truth" on the
// block features, weighted by the block's words. Reports a two-fold check (fit on half the pages,
// score markdown F1 on the other half) so that the constants are not just memorising the set.
// node dist/bench/fetch-fit-blocks.js
import { parseHtml } from '../src/fetch/convert/dom.js';
import { cleanPage, DEFAULT_TUNING } from '../src/fetch/convert/main-content.js';
import { collectTextBlocks } from '../src/fetch/convert/text-blocks.js';
import { FEATURE_NAMES, blockFeatures } from '../src/fetch/convert/content-model.js';
import { htmlToMarkdown } from '../src/fetch/convert/html-to-markdown.js';
import { loadWcxbPages, markdownToPlainText, sharedDataDir, tokens, wordF1, type WcxbPage } from './fetch-scoring.js';

interface Sample {
  x: number[];
  y: number;
  w: number;
}

function samplesOf(page: WcxbPage): Sample[] {
  const truth = tokens(page.truth);
  if (truth.length === 0) return [];
  const joined = ` ${truth.join(' ')} `;
  const trigrams = new Set<string>();
  for (let i = 0; i + 2 < truth.length; i++) trigrams.add(`${truth[i]} ${truth[i + 1]} ${truth[i + 2]}`);
  const blocks = collectTextBlocks(cleanPage(parseHtml(page.html)));
  const context = { hasLandmark: blocks.some((b) => b.inLandmark) };
  return blocks.map((block) => {
    const t = tokens(block.text);
    let y: number;
    if (t.length >= 3) {
      let hits = 0;
      for (let i = 0; i + 2 < t.length; i++) if (trigrams.has(`${t[i]} ${t[i + 1]} ${t[i + 2]}`)) hits++;
      y = hits / (t.length - 2);
    } else {
      y = t.length > 0 && joined.includes(` ${t.join(' ')} `) ? 1 : 0;
    }
    return { x: blockFeatures(block, context), y, w: Math.max(1, t.length) };
  });
}

function fit(samples: Sample[], iterations = 400, rate = 0.5): number[] {
  const n = FEATURE_NAMES.length;
  const weights = new Array<number>(n).fill(0);
  const totalWeight = samples.reduce((s, x) => s + x.w, 0);
  for (let it = 0; it < iterations; it++) {
    const grad = new Array<number>(n).fill(0);
    for (const s of samples) {
      let z = 0;
      for (let i = 0; i < n; i++) z += weights[i] * s.x[i];
      const p = 1 / (1 + Math.exp(-z));
      const g = (p - s.y) * s.w;
      for (let i = 0; i < n; i++) grad[i] += g * s.x[i];
    }
    for (let i = 0; i < n; i++) weights[i] -= (rate * grad[i]) / totalWeight + 0.0005 * weights[i];
  }
  return weights;
}

function meanF1(pages: WcxbPage[], weights: readonly number[]): number {
  let sum = 0;
  for (const page of pages) {
    const markdown = htmlToMarkdown(page.html, page.url, { ...DEFAULT_TUNING, blockWeights: weights });
    sum += wordF1(markdownToPlainText(markdown), page.truth).f1;
  }
  return sum / pages.length;
}

const dataDir = sharedDataDir();
if (!dataDir) throw new Error('../shared/data is missing');
const pages = loadWcxbPages(dataDir);
const samples = new Map(pages.map((p) => [p.id, samplesOf(p)]));
const halves = [pages.filter((_, i) => i % 2 === 0), pages.filter((_, i) => i % 2 === 1)];
for (const [k, train] of halves.entries()) {
  const test = halves[1 - k];
  const w = fit(train.flatMap((p) => samples.get(p.id)!));
  console.log(`fold ${k}: fitted on ${train.length} pages; markdown F1 on the other ${test.length}: ${meanF1(test, w).toFixed(3)} (current constants: ${meanF1(test, DEFAULT_TUNING.blockWeights).toFixed(3)})`);
}
const all = fit([...samples.values()].flat());
console.log('weights fitted on all pages:');
console.log(`[${all.map((v) => v.toFixed(2)).join(', ')}]`);
console.log(FEATURE_NAMES.map((name, i) => `  ${name.padEnd(16)} ${all[i].toFixed(2)}`).join('\n'));
console.log(`markdown F1 with them: ${meanF1(pages, all).toFixed(3)}`);
