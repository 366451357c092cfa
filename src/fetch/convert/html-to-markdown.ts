// A page's main content as markdown.
import { cleanPage, extractMainContent, DEFAULT_TUNING, type Tuning } from './main-content.js';
import { MarkdownWriter } from './markdown-writer.js';
import { documentBase } from './urls.js';
import { parseRenderedHtml } from './streamed-segments.js';

export function htmlToMarkdown(html: string, url: string | undefined, tuning: Tuning = DEFAULT_TUNING): string {
  const doc = parseRenderedHtml(html);
  const writer = new MarkdownWriter({ base: documentBase(doc, url) });
  const main = extractMainContent(doc, tuning);
  const markdown = writer.write(main.roots);
  if (markdown || main.wholePage) return markdown;
  // The chosen content had no text (an image gallery, say): the whole body says more.
  return writer.write([cleanPage(parseRenderedHtml(html), tuning)]);
}
