// The usual open-source pipeline the bench compares against: jsdom + Readability + turndown (GFM).
import { createRequire } from 'node:module';
import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';
import TurndownService from 'turndown';

const require = createRequire(import.meta.url);
const { gfm } = require('turndown-plugin-gfm') as { gfm: TurndownService.Plugin };

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
turndown.use(gfm);
const quiet = new VirtualConsole();

/** Readability's article as markdown; the whole body when Readability finds nothing. */
export function readabilityMarkdown(html: string, url: string): string {
  const dom = new JSDOM(html, { url: url || 'https://example.invalid/', virtualConsole: quiet });
  try {
    const article = new Readability(dom.window.document).parse();
    const content = article?.content ?? dom.window.document.body?.innerHTML ?? '';
    return turndown.turndown(content);
  } finally {
    dom.window.close();
  }
}
