// POST /v1/fetch: request validation and the three formats, against local upstream pages.
import assert from 'node:assert/strict';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { startFetchApi, startUpstream, type FetchApi, type Upstream } from './harness.js';

const ARTICLE = `<!doctype html><html><head><title>Guide</title><base href="/docs/">
<style>.x{color:red}</style><script>window.tracking = "script text";</script></head>
<body>
<header class="site-header"><a href="/">Home</a> <a href="/about">About us</a> <a href="/contact">Contact</a></header>
<nav><ul><li><a href="/a">Products</a></li><li><a href="/b">Pricing</a></li><li><a href="/c">Careers</a></li></ul></nav>
<div id="cookie-banner" class="cookie-consent">We use cookies to improve your experience. Accept all cookies?</div>
<main><article>
<h1>Installing the widget</h1>
<p>This guide explains how to install the widget on a fresh machine, step by step, with the commands you need and the checks that tell you it worked.</p>
<h2>Requirements</h2>
<ul><li>A machine with <strong>two cores</strong></li><li>Network access to the <a href="setup.html">setup page</a></li></ul>
<ol><li>Download the archive.</li><li>Unpack it somewhere sensible.</li></ol>
<p><img src="img/diagram.png" alt="Architecture diagram of the widget"></p>
<pre><code class="language-bash">npm install widget
widget --init</code></pre>
<blockquote><p>Always check the checksum before unpacking an archive you downloaded.</p></blockquote>
<table><thead><tr><th>Option</th><th>Meaning</th></tr></thead><tbody><tr><td>--init</td><td>creates the config</td></tr><tr><td>--force</td><td>overwrites files</td></tr></tbody></table>
<p>See the <a href="https://example.org/faq">frequently asked questions</a> when something goes wrong during the installation of the widget.</p>
</article></main>
<aside class="sidebar"><h3>Related</h3><a href="/x">Other guide one</a> <a href="/y">Other guide two</a></aside>
<footer><p>Copyright 2025 Widget Corp. All rights reserved.</p><a href="/privacy">Privacy</a></footer>
</body></html>`;

const PRODUCT = `<!doctype html><html><head><title>Kettle</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Steel Kettle","sku":"KT-1000",
"brand":{"@type":"Brand","name":"Boilwell"},"offers":{"@type":"Offer","price":"49.90","priceCurrency":"EUR","availability":"https://schema.org/InStock"}}</script>
<meta property="og:title" content="Steel Kettle 1.7 l"></head>
<body><h1>Steel Kettle</h1><div class="price">49,90 €</div>
<table><tr><th>Capacity</th><td>1,7 l</td></tr><tr><th>Weight</th><td>1.234,5 g</td></tr></table>
<h2>Features</h2><ul><li>Auto shut-off</li><li>Limescale filter</li></ul>
<div class="review">Great kettle, five stars</div></body></html>`;

const LISTING = `<html><body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav><h1>Kettles</h1>
<div class="results">
 <div class="card"><h3><a href="/p/1">Red kettle</a></h3><span class="price">$19.99</span><p>A red kettle for small kitchens.</p></div>
 <div class="card"><h3><a href="/p/2">Blue kettle</a></h3><span class="price">$24.50</span><p>A blue kettle with a filter.</p></div>
 <div class="card"><h3><a href="/p/3">Green kettle</a></h3><span class="price">$1,099.00</span><p>The luxury green kettle.</p></div>
</div>
<table><tr><th>Name</th><th>Population</th><th>Country</th></tr><tr><td>Paris</td><td>2,100,000</td><td>France</td></tr><tr><td>Rome</td><td>2,800,000</td><td>Italy</td></tr></table>
</body></html>`;

const PLAIN_PRODUCT = `<html><body><h1>Desk lamp</h1><p class="cost">Now only 1.299,00 kr</p><p>Status: out of stock</p>
<span id="product-code">LMP-77</span></body></html>`;

describe('POST /v1/fetch formats', function () {
  let api: FetchApi;
  let upstream: Upstream;

  before(async () => {
    api = await startFetchApi();
    upstream = await startUpstream((req, res) => {
      const path = req.url ?? '/';
      if (path === '/docs/guide') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-upstream': 'yes' }).end(ARTICLE);
      else if (path === '/product') res.writeHead(200, { 'content-type': 'text/html' }).end(PRODUCT);
      else if (path === '/links') res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><h2>Sitemap</h2><ul><li><a href="/one">One</a></li><li><a href="/two">Two</a></li><li><a href="/three">Three</a></li></ul></body></html>');
      else if (path === '/listing') res.writeHead(200, { 'content-type': 'text/html' }).end(LISTING);
      else if (path === '/p/LMP-7781') res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><h1>Table lamp</h1><p>A lamp.</p></body></html>');
      else if (path === '/plain-product') res.writeHead(200, { 'content-type': 'text/html' }).end(PLAIN_PRODUCT);
      else if (path === '/missing') res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>Not here</h1><p>This page does not exist, sorry about that.</p></body></html>');
      else if (path === '/binary') res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]));
      else if (path === '/pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4\n%\xff\xff\n1 0 obj');
      else if (path === '/cp1251') res.writeHead(200, { 'content-type': 'text/html; charset=windows-1251' }).end(Buffer.from([0x3c, 0x70, 0x3e, 0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2, 0x3c, 0x2f, 0x70, 0x3e]));
      else if (path === '/meta-charset') {
        // "Grüße" in ISO-8859-1, declared only by <meta charset>.
        res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.concat([Buffer.from('<html><head><meta charset="iso-8859-1"></head><body><p>Gr'), Buffer.from([0xfc, 0xdf]), Buffer.from('e</p></body></html>')]));
      } else if (path === '/shift-jis') res.writeHead(200, { 'content-type': 'text/plain; charset=shift_jis' }).end(Buffer.from([0x82, 0xa0, 0x82, 0xa2]));
      else if (path === '/gzip') res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync('compressed hello'));
      else if (path === '/brotli') res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'br' }).end(brotliCompressSync('brotli hello'));
      else if (path === '/deflate') res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'deflate' }).end(deflateSync('deflated hello'));
      // Applied in the order listed: deflate, then gzip.
      else if (path === '/stacked') res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'deflate, gzip' }).end(gzipSync(deflateSync('twice compressed hello')));
      else if (path === '/stacked-deep') res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip, gzip, gzip, gzip' }).end(gzipSync(gzipSync(gzipSync(gzipSync('deep')))));
      else if (path === '/text') res.writeHead(200, { 'content-type': 'text/plain' }).end('just *plain* text\nsecond line');
      else if (path === '/report') res.writeHead(200, { 'content-type': 'text/plain' }).end('Order report\nOrder number: A-1009\nTotal: 1.234,50 EUR\nShipped: yes\n');
      else if (path === '/json') res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"Widget","price":"12,50 €","stock":{"availability":"http://schema.org/OutOfStock"}}');
      else if (path === '/json-lists') res.writeHead(200, { 'content-type': 'application/json' }).end('{"tags":["a","b","c"],"nums":[1,2,3],"data":{"labels":["x","y"]},"list":[{"n":"p","v":1},{"n":"q","v":2}]}');
      else if (path === '/jsonld-images') {
        const product = { '@context': 'https://schema.org', '@type': 'Product', name: 'Lamp', image: ['https://shop.test/1.jpg', 'https://shop.test/2.jpg', 'https://shop.test/3.jpg'] };
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><script type="application/ld+json">${JSON.stringify(product)}</script></head><body><h1>Lamp</h1></body></html>`);
      }
      else if (path === '/csv') res.writeHead(200, { 'content-type': 'text/csv' }).end('name,qty\nbolts,4\n"nuts, large",2\n');
      else res.writeHead(404).end();
    });
  });

  after(async () => {
    await api.close();
    await upstream.close();
  });

  describe('validation: 400 naming the field, with the fetch id', () => {
    const cases: [string, unknown, RegExp][] = [
      ['missing url', {}, /url is required/],
      ['url of another scheme', { url: 'ftp://example.org/file' }, /url must use http or https/],
      ['relative url', { url: '/just/a/path' }, /url must be an absolute http or https URL/],
      ['unknown format', { url: 'http://127.0.0.1/', format: 'pdf' }, /format must be one of raw, markdown, json/],
      ['json without schema', { url: 'http://127.0.0.1/', format: 'json' }, /schema is required when format is json/],
      ['invalid JSON Schema', { url: 'http://127.0.0.1/', format: 'json', schema: { type: 'object', properties: { a: { type: 'wat' } } } }, /schema is not a valid JSON Schema/],
      ['bad extraction hint', { url: 'http://127.0.0.1/', format: 'json', schema: { type: 'object', properties: { a: { type: 'string', 'x-extract': { selector: 'p[[' } } } } }, /schema\.properties\.a\.x-extract\.selector is not a valid CSS selector/],
      ['x-extract selector nesting :has()', { url: 'http://127.0.0.1/', format: 'json', schema: { type: 'object', properties: { a: { type: 'string', 'x-extract': 'div:has(div:has(span))' } } } }, /schema\.properties\.a\.x-extract\.selector nests :has\(\) inside :has\(\)/],
      [
        'x-extract selector nesting :has() through :is() and :not(), in array items',
        { url: 'http://127.0.0.1/', format: 'json', schema: { type: 'array', items: { type: 'object', properties: { b: { type: 'string', 'x-extract': { selector: 'p, li:has(:is(a, :not(b:has(i))))' } } } } } },
        /schema\.items\.properties\.b\.x-extract\.selector nests :has\(\) inside :has\(\)/,
      ],
      ['non-boolean flag', { url: 'http://127.0.0.1/', allowRedirects: 'yes' }, /allowRedirects must be a boolean/],
      ['misspelt field', { url: 'http://127.0.0.1/', fromat: 'markdown' }, /body has unknown property "fromat"; the fields are url, format, schema, allowRedirects, allowInsecureSsl, proxies/],
      ['misspelt flag', { url: 'http://127.0.0.1/', allowRedirect: true }, /body has unknown property "allowRedirect"/],
      ['proxies without a configured proxy', { url: 'http://127.0.0.1/', proxies: true }, /no proxy configured \(BROWSERFN_FETCH_PROXY\)/],
      ['body not an object', [1, 2], /Request body must be a JSON object/],
    ];
    for (const [name, body, message] of cases) {
      it(name, async () => {
        const { status, body: error } = await api.post(body);
        assert.equal(status, 400);
        assert.match(error.message, message);
        assert.equal(error.statusCode, 400);
        assert.equal(error.error, 'Bad Request');
        assert.match(error.id, /^[0-9a-f-]{36}$/);
      });
    }

    it('malformed JSON is a 400 with the id', async () => {
      const { status, body } = await api.post('{"url": ');
      assert.equal(status, 400);
      assert.match(body.message, /not valid JSON/);
      assert.ok(body.id);
    });

    it('the API key is still required (401 from the pipeline)', async () => {
      const { status } = await api.post({ url: `${upstream.url}/text` }, 'wrong-key');
      assert.equal(status, 401);
    });
  });

  describe('raw', () => {
    it('returns the body unchanged with upstream status, headers and MIME type', async () => {
      const { status, body } = await api.post({ url: `${upstream.url}/docs/guide` });
      assert.equal(status, 200);
      assert.equal(body.statusCode, 200);
      assert.equal(body.content, ARTICLE);
      assert.equal(body.encoding, 'utf-8');
      assert.equal(body.contentType, 'text/html');
      assert.equal(body.headers['x-upstream'], 'yes');
      assert.match(body.id, /^[0-9a-f-]{36}$/);
    });

    it('a 404 page is a successful fetch carrying statusCode 404', async () => {
      const { status, body } = await api.post({ url: `${upstream.url}/missing` });
      assert.equal(status, 200);
      assert.equal(body.statusCode, 404);
      assert.match(body.content, /Not here/);
    });

    it('binary bodies come back as base64', async () => {
      const { body } = await api.post({ url: `${upstream.url}/binary` });
      assert.equal(body.encoding, 'base64');
      assert.equal(body.contentType, 'image/png');
      assert.deepEqual([...Buffer.from(body.content, 'base64')], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);
    });

    it('decodes the declared charset (windows-1251) to UTF-8', async () => {
      const { body } = await api.post({ url: `${upstream.url}/cp1251` });
      assert.equal(body.content, '<p>Привет</p>');
      assert.equal(body.encoding, 'utf-8');
    });

    it('decodes a charset declared only by <meta charset>', async () => {
      const { body } = await api.post({ url: `${upstream.url}/meta-charset` });
      assert.match(body.content, /Grüße/);
    });

    it('decodes Shift_JIS text', async () => {
      const { body } = await api.post({ url: `${upstream.url}/shift-jis` });
      assert.equal(body.content, 'あい');
    });

    it('decompresses gzip, deflate and brotli bodies', async () => {
      assert.equal((await api.post({ url: `${upstream.url}/gzip` })).body.content, 'compressed hello');
      assert.equal((await api.post({ url: `${upstream.url}/brotli` })).body.content, 'brotli hello');
      assert.equal((await api.post({ url: `${upstream.url}/deflate` })).body.content, 'deflated hello');
    });

    it('undoes stacked content codings last first, and refuses more than three with a 502', async () => {
      assert.equal((await api.post({ url: `${upstream.url}/stacked` })).body.content, 'twice compressed hello');
      const deep = await api.post({ url: `${upstream.url}/stacked-deep` });
      assert.equal(deep.status, 502);
      assert.match(deep.body.message, /declared gzip, gzip, gzip, gzip-encoded; at most 3 content codings are undone/);
    });

    it('gives every fetch its own id', async () => {
      const [a, b] = await Promise.all([api.post({ url: `${upstream.url}/text` }), api.post({ url: `${upstream.url}/text` })]);
      assert.notEqual(a.body.id, b.body.id);
    });
  });

  describe('markdown', () => {
    let markdown: string;
    before(async () => {
      const { status, body } = await api.post({ url: `${upstream.url}/docs/guide`, format: 'markdown' });
      assert.equal(status, 200);
      assert.equal(body.encoding, 'utf-8');
      assert.equal(body.contentType, 'text/html');
      markdown = body.content;
    });

    it('keeps headings, paragraphs, lists, code with its language, quotes and tables', () => {
      assert.match(markdown, /^# Installing the widget$/m);
      assert.match(markdown, /^## Requirements$/m);
      assert.match(markdown, /This guide explains how to install the widget/);
      assert.match(markdown, /^- A machine with \*\*two cores\*\*$/m);
      assert.match(markdown, /^1\. Download the archive\.$/m);
      assert.match(markdown, /^2\. Unpack it somewhere sensible\.$/m);
      assert.match(markdown, /```bash\nnpm install widget\nwidget --init\n```/);
      assert.match(markdown, /^> Always check the checksum/m);
      assert.match(markdown, /\| Option \| Meaning \|\n\| --- \| --- \|\n\| --init \| creates the config \|/);
    });

    it('makes links and images absolute against <base href>', () => {
      assert.match(markdown, /\[setup page\]\(http:\/\/127\.0\.0\.1:\d+\/docs\/setup\.html\)/);
      assert.match(markdown, /!\[Architecture diagram of the widget\]\(http:\/\/127\.0\.0\.1:\d+\/docs\/img\/diagram\.png\)/);
      assert.match(markdown, /\[frequently asked questions\]\(https:\/\/example\.org\/faq\)/);
    });

    it('drops navigation, header, footer, sidebar, cookie banner, scripts and styles', () => {
      for (const chrome of ['About us', 'Pricing', 'Careers', 'cookies', 'Copyright 2025', 'Other guide one', 'script text', 'color:red', 'Privacy']) {
        assert.ok(!markdown.includes(chrome), `markdown should not contain "${chrome}"`);
      }
    });

    it('falls back to the whole (cleaned) body when no main content stands out', async () => {
      const { body } = await api.post({ url: `${upstream.url}/links`, format: 'markdown' });
      assert.equal(body.content, `## Sitemap\n\n- [One](${upstream.url}/one)\n- [Two](${upstream.url}/two)\n- [Three](${upstream.url}/three)`);
    });

    it('returns plain text as it is, JSON in a fenced block and CSV as a table', async () => {
      assert.equal((await api.post({ url: `${upstream.url}/text`, format: 'markdown' })).body.content, 'just *plain* text\nsecond line');
      assert.match((await api.post({ url: `${upstream.url}/json`, format: 'markdown' })).body.content, /^```json\n\{\n {2}"name": "Widget",/);
      assert.equal((await api.post({ url: `${upstream.url}/csv`, format: 'markdown' })).body.content, '| name | qty |\n| --- | --- |\n| bolts | 4 |\n| nuts, large | 2 |');
    });

    it('refuses content that cannot be converted (PDF, images) with 400', async () => {
      for (const path of ['/pdf', '/binary']) {
        const { status, body } = await api.post({ url: `${upstream.url}${path}`, format: 'markdown' });
        assert.equal(status, 400);
        assert.match(body.message, /cannot be converted to markdown; use format raw/);
        assert.ok(body.id);
      }
    });
  });

  describe('json', () => {
    const productSchema = {
      type: 'object',
      properties: { name: { type: 'string' }, price: { type: 'number' }, currency: { type: 'string' }, sku: { type: 'string' }, availability: { type: 'string' }, brand: { type: 'string' } },
    };

    it('reads JSON-LD and normalises schema.org values', async () => {
      const { status, body } = await api.post({ url: `${upstream.url}/product`, format: 'json', schema: productSchema });
      assert.equal(status, 200);
      assert.deepEqual(body.content, { name: 'Steel Kettle', price: 49.9, currency: 'EUR', sku: 'KT-1000', availability: 'InStock', brand: 'Boilwell' });
      assert.equal(body.encoding, 'utf-8');
    });

    it('without structured data, matches class names, labels and prices with decimal commas', async () => {
      const { body } = await api.post({
        url: `${upstream.url}/plain-product`,
        format: 'json',
        schema: { type: 'object', properties: { title: { type: 'string' }, cost: { type: 'number' }, status: { type: 'string' }, productCode: { type: 'string' } } },
      });
      assert.deepEqual(body.content, { title: 'Desk lamp', cost: 1299, status: 'out of stock', productCode: 'LMP-77' });
    });

    it('takes a product code from the URL when the page names none', async () => {
      const { body } = await api.post({ url: `${upstream.url}/p/LMP-7781`, format: 'json', schema: { type: 'object', properties: { sku: { type: 'string' } } } });
      assert.deepEqual(body.content, { sku: 'LMP-7781' });
    });

    it('follows x-extract hints: selector, attribute and regex', async () => {
      const { body } = await api.post({
        url: `${upstream.url}/product`,
        format: 'json',
        schema: {
          type: 'object',
          properties: {
            headline: { type: 'string', 'x-extract': { selector: 'meta[property="og:title"]', attribute: 'content', regex: '^(\\S+)' } },
            grams: { type: 'number', 'x-extract': { selector: 'table tr:nth-child(2) td' } },
            features: { type: 'array', items: { type: 'string' }, 'x-extract': 'h2 + ul li' },
          },
        },
      });
      assert.deepEqual(body.content, { headline: 'Steel', grams: 1234.5, features: ['Auto shut-off', 'Limescale filter'] });
    });

    it('runs a selector with one level of :has(), and several side by side', async () => {
      const { body } = await api.post({
        url: `${upstream.url}/listing`,
        format: 'json',
        schema: {
          type: 'object',
          properties: {
            italian: { type: 'string', 'x-extract': 'tr:has(td:contains(Italy)) td:first-child' },
            pricey: { type: 'string', 'x-extract': '.card:has(a[href="/p/3"]):has(.price) h3' },
          },
        },
      });
      assert.deepEqual(body.content, { italian: 'Rome', pricey: 'Green kettle' });
    });

    it('finds arrays of strings under a heading that names the property, and label/value pairs', async () => {
      const { body } = await api.post({
        url: `${upstream.url}/product`,
        format: 'json',
        schema: { type: 'object', properties: { features: { type: 'array', items: { type: 'string' } }, capacity: { type: 'string' }, weight: { type: 'number' } } },
      });
      assert.deepEqual(body.content, { features: ['Auto shut-off', 'Limescale filter'], capacity: '1,7 l', weight: 1234.5 });
    });

    it('builds arrays of objects from repeated elements and from tables, whichever fills more', async () => {
      const { body } = await api.post({
        url: `${upstream.url}/listing`,
        format: 'json',
        schema: {
          type: 'object',
          properties: {
            products: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' }, url: { type: 'string', format: 'uri' } } } },
            cities: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, population: { type: 'integer' }, country: { type: 'string' } } } },
          },
        },
      });
      assert.deepEqual(body.content.products, [
        { name: 'Red kettle', price: 19.99, url: `${upstream.url}/p/1` },
        { name: 'Blue kettle', price: 24.5, url: `${upstream.url}/p/2` },
        { name: 'Green kettle', price: 1099, url: `${upstream.url}/p/3` },
      ]);
      assert.deepEqual(body.content.cities, [
        { name: 'Paris', population: 2100000, country: 'France' },
        { name: 'Rome', population: 2800000, country: 'Italy' },
      ]);
    });

    it('an x-extract selector on an array makes each match an item scope', async () => {
      const { body } = await api.post({
        url: `${upstream.url}/listing`,
        format: 'json',
        schema: {
          type: 'array',
          'x-extract': '.card',
          items: { type: 'object', properties: { title: { type: 'string', 'x-extract': 'h3' }, cost: { type: 'number', 'x-extract': { selector: '.price', regex: '\\$([\\d,.]+)' } } } },
        },
      });
      assert.deepEqual(body.content, [
        { title: 'Red kettle', cost: 19.99 },
        { title: 'Blue kettle', cost: 24.5 },
        { title: 'Green kettle', cost: 1099 },
      ]);
    });

    it('reads "Label: value" lines of a plain-text body', async () => {
      const { body } = await api.post({
        url: `${upstream.url}/report`,
        format: 'json',
        schema: { type: 'object', properties: { orderNumber: { type: 'string' }, total: { type: 'number' }, shipped: { type: 'boolean' } } },
      });
      assert.deepEqual(body.content, { orderNumber: 'A-1009', total: 1234.5, shipped: true });
    });

    it('extracts from a JSON body by key, at any depth', async () => {
      const { body } = await api.post({
        url: `${upstream.url}/json`,
        format: 'json',
        schema: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' }, availability: { type: 'string' } } },
      });
      assert.deepEqual(body.content, { name: 'Widget', price: 12.5, availability: 'OutOfStock' });
    });

    it('keeps every item of lists of plain values, in a JSON body and in a page\'s JSON-LD', async () => {
      const list = (type: string) => ({ type: 'array', items: { type } });
      const { body } = await api.post({
        url: `${upstream.url}/json-lists`,
        format: 'json',
        schema: {
          type: 'object',
          properties: {
            tags: list('string'),
            nums: list('number'),
            labels: list('string'),
            list: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' }, v: { type: 'number' } } } },
          },
        },
      });
      assert.deepEqual(body.content, { tags: ['a', 'b', 'c'], nums: [1, 2, 3], labels: ['x', 'y'], list: [{ n: 'p', v: 1 }, { n: 'q', v: 2 }] });
      const page = await api.post({
        url: `${upstream.url}/jsonld-images`,
        format: 'json',
        schema: { type: 'object', properties: { name: { type: 'string' }, image: { type: 'array', items: { type: 'string', format: 'uri' } } } },
      });
      assert.deepEqual(page.body.content, { name: 'Lamp', image: ['https://shop.test/1.jpg', 'https://shop.test/2.jpg', 'https://shop.test/3.jpg'] });
    });

    it('a page that cannot satisfy the schema is a 400 with the partial result and the unmet rules', async () => {
      const { status, body } = await api.post({
        url: `${upstream.url}/product`,
        format: 'json',
        schema: { type: 'object', required: ['name', 'isbn'], properties: { name: { type: 'string' }, isbn: { type: 'string' } } },
      });
      assert.equal(status, 400);
      assert.match(body.message, /The page does not satisfy the schema: \/ must have required property 'isbn'/);
      assert.deepEqual(body.content, { name: 'Steel Kettle' });
      assert.equal(body.validationErrors[0].keyword, 'required');
      assert.equal(body.pageStatusCode, 200);
      assert.ok(body.id);
    });
  });
});
