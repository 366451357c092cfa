// A page's main content as markdown.
import { cleanPage, extractMainContent, DEFAULT_TUNING, type MainContent, type Tuning } from './main-content.js';
import { MarkdownWriter } from './markdown-writer.js';
import { documentBase } from './urls.js';
import { parseRenderedHtml } from './streamed-segments.js';
import { textOf } from './dom.js';

/** Below this many words the main content is next to nothing: maybe a script was to show the rest. */
const TINY_CONTENT_WORDS = 50;
/** What the content hidden by inline styles must hold to replace that. */
const REVEALED_CONTENT_WORDS = 100;

export function htmlToMarkdown(html: string, url: string | undefined, tuning: Tuning = DEFAULT_TUNING): string {
  const doc = parseRenderedHtml(html);
  const writer = new MarkdownWriter({ base: documentBase(doc, url) });
  let main = extractMainContent(doc, tuning);
  if (wordCount(main) < TINY_CONTENT_WORDS) {
    // Some pages ship their content under an inline display:none that a script lifts (a product
    // block waiting for its variant picker). Hidden menus and dialogs stay out: their chrome names
    // and tags still remove them, and the retry only runs when the visible page says almost nothing.
    const revealed = extractMainContent(parseRenderedHtml(html), tuning, { keepStyleHidden: true });
    if (wordCount(revealed) >= REVEALED_CONTENT_WORDS) main = revealed;
  }
  const markdown = writer.write(main.roots);
  if (markdown || main.wholePage) return markdown;
  // The chosen content had no text (an image gallery, say): the whole body says more.
  return writer.write([cleanPage(parseRenderedHtml(html), tuning)]);
}

function wordCount(main: MainContent): number {
  return main.roots.reduce((sum, root) => sum + (textOf(root).match(/\w+/g)?.length ?? 0), 0);
}
