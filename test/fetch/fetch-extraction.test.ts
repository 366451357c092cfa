// Extraction rules on small hand-written pages: content that a page's streaming script moves into
// place (markdown), and which text JSON extraction takes for page-level properties.
import assert from 'node:assert/strict';
import { htmlToMarkdown } from '../../src/fetch/convert/html-to-markdown.js';

const FILLER = 'The guide walks through every step with the commands you need and the checks that tell you it worked.';

function page(body: string): string {
  return `<!doctype html><html><head><title>Guide</title></head><body><main><h1>Building the site</h1>${body}</main></body></html>`;
}

describe('fetch extraction rules', () => {
  describe('React streaming segments', () => {
    it('$RC puts a segment in place of its boundary\'s fallback, nested boundaries included', () => {
      const markdown = htmlToMarkdown(
        page(
          `<p>${FILLER} First install the tools, then run:</p>` +
            '<!--$?--><template id="B:0"></template><p>Loading the snippet…</p><!--$--><p>Inner fallback</p><!--/$--><!--/$-->' +
            `<p>${FILLER} Then open the output folder.</p>` +
            '<div hidden id="S:0"><pre><code>npm run build</code></pre></div><script>$RC("B:0","S:0")</script>',
        ),
        'https://docs.test/guide',
      );
      assert.match(markdown, /then run:\n\n```\nnpm run build\n```\n\n.*Then open the output folder/s);
      assert.doesNotMatch(markdown, /Loading the snippet|Inner fallback/);
    });

    it('$RS puts a segment in place of its placeholder, in script order', () => {
      const markdown = htmlToMarkdown(
        page(
          `<p>${FILLER} Before the table.</p><!--$?--><template id="B:0"></template><p>Loading…</p><!--/$--><p>${FILLER} After it.</p>` +
            '<div hidden id="S:0"><p>Options of the build:</p><template id="P:1"></template></div>' +
            '<div hidden id="S:1"><ul><li>--watch rebuilds on change</li></ul></div>' +
            '<script>$RS("S:1","P:1")</script><script>$RC("B:0","S:0")</script>',
        ),
        undefined,
      );
      assert.match(markdown, /Before the table\.\n\nOptions of the build:\n\n- --watch rebuilds on change\n\n.*After it\./s);
    });

    it('leaves a segment whose script is absent hidden', () => {
      const markdown = htmlToMarkdown(
        page(`<p>${FILLER}</p><!--$?--><template id="B:0"></template><p>Loading…</p><!--/$--><div hidden id="S:0"><p>Never revealed</p></div>`),
        undefined,
      );
      assert.doesNotMatch(markdown, /Never revealed/);
    });
  });
});
