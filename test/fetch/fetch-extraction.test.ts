// Extraction rules on small hand-written pages: content that a page's script moves into place or
// shows (markdown), and which text JSON extraction takes for page-level properties.
import assert from 'node:assert/strict';
import { convertDocument } from '../../src/fetch/convert/convert-document.js';
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

    it('moves nothing on the say of a page\'s data, or of ids React does not write', () => {
      const markdown = htmlToMarkdown(
        page(
          `<p>${FILLER}</p><!--$?--><template id="B:7"></template><p>Loading…</p><!--/$--><div hidden id="draft">Editors only</div><div hidden id="S:2">Seg two</div>` +
            `<script type="application/json" id="__NEXT_DATA__">{"comment":"$RC(\\"B:7\\",\\"S:2\\")"}</script><script>$RC("B:7","draft");$RS("S:2","S:2")</script>`,
        ),
        undefined,
      );
      assert.doesNotMatch(markdown, /Editors only|Seg two/);
    });

    it('refuses a move that would put a segment inside itself, as the browser does, and ends', () => {
      // $RS("S:1","P:1") with P:1 inside S:1 made the tree a cycle and the conversion ran until its time limit.
      const markdown = htmlToMarkdown(
        page(`<p>${FILLER}</p><div hidden id="S:1"><div id="D"><template id="P:1"></template><span id="S:2">moved</span></div></div><template id="P:2"></template><script>$RS("S:1","P:1");$RS("S:2","P:2")</script>`),
        undefined,
      );
      assert.match(markdown, /moved/);
      const boundary = htmlToMarkdown(
        page(`<p>${FILLER}</p><div hidden id="S:1"><div><!--$?--><template id="B:1"></template>fallback<!--/$--></div></div><script>$RC("B:1","S:1")</script>`),
        undefined,
      );
      assert.match(boundary, /The guide walks/);
    });
  });

  describe('content hidden by an inline style', () => {
    const menus = Array.from({ length: 6 }, (_, m) => `<div class="mega-menu" style="display:none"><ul>${Array.from({ length: 30 }, (_, i) => `<li><a href="/c/${m}/${i}">Category number ${i}</a></li>`).join('')}</ul></div>`).join('');
    const product = `<div class="product-wrapper" style="display: none"><h1>Almond Thins</h1><p>${FILLER.repeat(4)}</p><ul><li>Product code: AT-601</li><li>Weight: 148 g</li></ul><p>${FILLER.repeat(3)}</p></div>`;

    // The menus make the product block a small share of the page's text (a large share is always kept).
    it('is taken when the visible page holds next to no content, hidden menus still dropped', () => {
      const markdown = htmlToMarkdown(`<html><body><header><a href="/">Shop</a></header>${menus}${product}<footer>© Shop</footer></body></html>`, undefined);
      assert.match(markdown, /# Almond Thins/);
      assert.match(markdown, /Product code: AT-601/);
      assert.doesNotMatch(markdown, /Category number/);
    });

    it('stays out when the visible page has content of its own', () => {
      // Long enough that the hidden block is not a large share of the page (those are always kept).
      const markdown = htmlToMarkdown(page(`<p>${FILLER.repeat(8)}</p><p>${FILLER.repeat(8)}</p>${product}`), undefined);
      assert.match(markdown, /# Building the site/);
      assert.doesNotMatch(markdown, /Almond Thins/);
    });
  });

  describe('JSON: page-level properties', () => {
    const extract = (html: string, properties: Record<string, unknown>): Record<string, unknown> =>
      convertDocument({ format: 'json', body: html, contentType: 'text/html', url: 'https://shop.test/boots', schema: { type: 'object', properties } })
        .content as Record<string, unknown>;
    const boots = (table: string): string =>
      '<html><head><title>Best Hiking Boots 2026</title></head><body><main><h1>Best Hiking Boots 2026</h1>' +
      `<p>We walked every boot for a week on rough trails before writing a word about it.</p>${table}</main></body></html>`;
    const strings = { title: { type: 'string' }, name: { type: 'string' }, headline: { type: 'string' } };

    it('a table\'s header row is column headings, not a label and its value', () => {
      for (const header of ['<tr><th>Name</th><th>Weight</th></tr>', '<thead><tr><td>Name</td><td>Weight</td></tr></thead>']) {
        const content = extract(boots(`<table>${header}<tr><td>Boot A</td><td>1.2 kg</td></tr><tr><td>Boot B</td><td>1.4 kg</td></tr></table>`), strings);
        assert.deepEqual(content, { title: 'Best Hiking Boots 2026', name: 'Best Hiking Boots 2026', headline: 'Best Hiking Boots 2026' }, header);
      }
    });

    it('the page\'s h1 outranks a label/value pair unless the label is the property\'s own name', () => {
      const content = extract(boots('<table><tr><td>Name</td><td>Trail Runner X</td></tr><tr><td>Weight</td><td>1.2 kg</td></tr></table>'), {
        ...strings,
        weight: { type: 'string' },
      });
      assert.deepEqual(content, { title: 'Best Hiking Boots 2026', name: 'Trail Runner X', headline: 'Best Hiking Boots 2026', weight: '1.2 kg' });
    });

    it('inline element edges add no space before punctuation', () => {
      const html = '<html><body><main><h1>Guide</h1><p>This page explains <strong>tables</strong>, <em>lists</em>; and <a href="/x">links</a>. Also <code>code</code>!</p></main></body></html>';
      assert.equal(extract(html, { description: { type: 'string' } }).description, 'This page explains tables, lists; and links. Also code!');
    });
  });
});
