// A page's main content as markdown.
import { parseHtml } from './dom.js';
import { cleanPage, extractMainContent, DEFAULT_TUNING, type Tuning } from './main-content.js';
import { MarkdownWriter } from './markdown-writer.js';
import { documentBase } from './urls.js';

export function htmlToMarkdown(html: string, url: string | undefined, tuning: Tuning = DEFAULT_TUNING): string {
  const doc = parseHtml(html);
  const writer = new MarkdownWriter({ base: documentBase(doc, url) });
  const main = extractMainContent(doc, tuning);
  const markdown = writer.write(main.roots);
  if (markdown || main.wholePage) return markdown;
  // The chosen content had no text (an image gallery, say): the whole body says more.
  return writer.write([cleanPage(parseHtml(html), tuning)]);
}
