// How likely a text block is to be main content: a logistic model over generic features of the
// block (length, punctuation, link density, tag, position, landmark, class-name vocabulary).
// The weights were fitted once on the WCXB development pages by bench/fetch-fit-blocks.ts and
// are kept here as constants; nothing in them names a site.
import type { Element } from './dom.js';
import type { TextBlock } from './text-blocks.js';

export const FEATURE_NAMES = [
  'bias', 'log2Words', 'fewWords', 'linkDensity', 'allLink', 'endsSentence', 'punctuationRate', 'inLandmark',
  'outsideLandmark', 'position', 'lastTenth', 'paragraphTag', 'headingTag', 'itemTag', 'secondaryName',
  'contentName', 'repeated',
] as const;

export interface PageContext {
  hasLandmark: boolean;
}

export function blockFeatures(block: TextBlock, page: PageContext): number[] {
  const ld = block.chars ? block.linkChars / block.chars : 0;
  const tag = 'name' in block.owner ? (block.owner as Element).name : 'body';
  const punctuation = (block.text.match(/[.,;:!?]/g)?.length ?? 0) / Math.max(1, block.words);
  return [
    1,
    Math.log2(block.words + 1),
    block.words <= 2 ? 1 : 0,
    ld,
    ld >= 0.99 ? 1 : 0,
    /[.!?:"”’)]$/.test(block.text) ? 1 : 0,
    Math.min(punctuation, 0.5),
    block.inLandmark ? 1 : 0,
    page.hasLandmark && !block.inLandmark ? 1 : 0,
    block.position,
    block.position >= 0.9 ? 1 : 0,
    tag === 'p' || tag === 'pre' || tag === 'blockquote' ? 1 : 0,
    /^h[1-6]$/.test(tag) ? 1 : 0,
    tag === 'li' || tag === 'td' || tag === 'th' || tag === 'dd' || tag === 'dt' ? 1 : 0,
    block.secondaryName ? 1 : 0,
    block.contentName ? 1 : 0,
    block.repeated ? 1 : 0,
  ];
}

export const BLOCK_WEIGHTS: readonly number[] = [
  0.82, -0.05, -0.24, -0.2, -0.47, 0.93, -0.21, 0.81, -1.56, -0.45, -0.82, 1.18, 0.53, 0.63, -0.53, -0.38, -0.45,
];

export function contentProbability(block: TextBlock, page: PageContext, weights: readonly number[] = BLOCK_WEIGHTS): number {
  const x = blockFeatures(block, page);
  let z = 0;
  for (let i = 0; i < x.length; i++) z += x[i] * weights[i];
  return 1 / (1 + Math.exp(-z));
}
