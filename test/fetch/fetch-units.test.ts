// Pieces of the fetcher on their own: the address policy, number and availability normalisation,
// body decoding, the markdown writer's guard against deep nesting, and linear conversion time.
import assert from 'node:assert/strict';
import { AddressPolicy } from '../../src/fetch/address-policy.js';
import { normaliseAvailability, parseNumber } from '../../src/fetch/extract/coerce-value.js';
import { decodeBody } from '../../src/fetch/body-decoding.js';
import { htmlToMarkdown } from '../../src/fetch/convert/html-to-markdown.js';
import { QuotaLedger } from '../../src/fetch/quota-ledger.js';
import { loadFetchSettings } from '../../src/fetch/settings.js';

describe('fetch units', () => {
  describe('address policy', () => {
    const policy = new AddressPolicy({ allowPrivate: false, allowCidrs: [] });
    it('allows public unicast addresses', () => {
      for (const ip of ['8.8.8.8', '93.184.216.34', '2606:4700::1111']) assert.equal(policy.refusal(ip), undefined, ip);
    });
    it('refuses internal ranges, including IPv4 inside IPv6', () => {
      for (const ip of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.100.100.200', '0.0.0.0', '255.255.255.255', '224.0.0.251', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'ff02::1', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:7f00:1::1']) {
        assert.ok(policy.refusal(ip), ip);
      }
    });
    it('an allowlist entry lifts exactly its network', () => {
      const allowing = new AddressPolicy({ allowPrivate: false, allowCidrs: loadFetchSettings({ BROWSERFN_FETCH_ALLOW_CIDRS: '10.1.0.0/16, fd00::/8' }).allowCidrs });
      assert.equal(allowing.refusal('10.1.2.3'), undefined);
      assert.equal(allowing.refusal('fd00::5'), undefined);
      assert.ok(allowing.refusal('10.2.0.1'));
    });
  });

  describe('settings', () => {
    it('reject malformed values with the variable name', () => {
      assert.throws(() => loadFetchSettings({ BROWSERFN_FETCH_TIMEOUT_MS: 'soon' }), /BROWSERFN_FETCH_TIMEOUT_MS must be an integer/);
      assert.throws(() => loadFetchSettings({ BROWSERFN_FETCH_QUOTAS: 'alpha=3' }), /BROWSERFN_FETCH_QUOTAS: "alpha=3" must be project:format=limit/);
      assert.throws(() => loadFetchSettings({ BROWSERFN_FETCH_FORMATS: 'raw,pdf' }), /unknown format "pdf"/);
      assert.throws(() => loadFetchSettings({ BROWSERFN_FETCH_PROXY: 'socks5://proxy:1080' }), /must be an http:\/\/ proxy/);
    });
    it('have the documented defaults', () => {
      const s = loadFetchSettings({});
      assert.equal(s.timeoutMs, 60_000);
      assert.equal(s.maxBodyBytes, 5 * 1024 * 1024);
      assert.equal(s.maxRedirects, 10);
      assert.equal(s.allowPrivate, false);
      assert.deepEqual([...s.formats.get('*')!], ['raw', 'markdown', 'json']);
      assert.deepEqual(s.quotas, []);
    });
  });

  describe('quota ledger', () => {
    it('picks the most specific rule and resets with the window', () => {
      let now = 0;
      const ledger = new QuotaLedger(loadFetchSettings({ BROWSERFN_FETCH_QUOTAS: '*:*=5;alpha:*=2;alpha:json=1' }).quotas, 1000, () => now);
      assert.equal(ledger.limitFor('alpha', 'json'), 1);
      assert.equal(ledger.limitFor('alpha', 'raw'), 2);
      assert.equal(ledger.limitFor('beta', 'raw'), 5);
      assert.ok(ledger.reserve('alpha', 'json').ok);
      assert.ok(!ledger.reserve('alpha', 'json').ok);
      now = 1000;
      assert.ok(ledger.reserve('alpha', 'json').ok);
    });
  });

  describe('number and availability normalisation', () => {
    const cases: [string, number][] = [
      ['$1,234.56', 1234.56], ['1.234,56 €', 1234.56], ['12,99', 12.99], ['1 299 kr', 1299], ['€ 49', 49],
      ['USD 19.90 incl. VAT', 19.9], ['1,234', 1234], ['0.5', 0.5], ['23.450', 23.45], ['Price: 2.499,- €', 2499],
    ];
    for (const [text, value] of cases) it(`"${text}" → ${value}`, () => assert.equal(parseNumber(text), value));
    it('maps schema.org URLs and shop phrases to schema.org terms', () => {
      assert.equal(normaliseAvailability('https://schema.org/InStock'), 'InStock');
      assert.equal(normaliseAvailability('http://schema.org/OutOfStock'), 'OutOfStock');
      assert.equal(normaliseAvailability('Sold out'), 'OutOfStock');
      assert.equal(normaliseAvailability('In stock, ships tomorrow'), 'InStock');
      assert.equal(normaliseAvailability('Pre-order now'), 'PreOrder');
      assert.equal(normaliseAvailability('Call us'), undefined);
    });
  });

  describe('body decoding', () => {
    it('sniffs HTML and binary without a Content-Type', () => {
      assert.equal(decodeBody(Buffer.from('<!DOCTYPE html><p>x</p>'), undefined).mimeType, 'text/html');
      assert.equal(decodeBody(Buffer.from([0, 1, 2, 3, 0xff]), undefined).text, undefined);
    });
    it('honours a byte order mark over the header', () => {
      const body = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hé', 'utf16le')]);
      assert.equal(decodeBody(body, 'text/plain; charset=iso-8859-1').text, 'hé');
    });
    it('falls back to windows-1252 for undeclared bytes that are not UTF-8', () => {
      assert.equal(decodeBody(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'text/plain').text, 'café');
    });
    it('decodes windows-1252 (and its latin1 labels, as WHATWG maps them) with its quotes, dashes and euro sign', () => {
      // “q” – 5€ … then every byte 0x80-0x9F, the five the index leaves as they are included.
      const bytes = Buffer.from([0x93, 0x71, 0x94, 0x20, 0x96, 0x20, 0x35, 0x80, 0x20, 0x85]);
      for (const header of ['text/html; charset=windows-1252', 'text/html; charset=iso-8859-1', 'text/html; charset=latin1', 'text/html; charset=us-ascii', 'text/html']) {
        assert.equal(decodeBody(bytes, header).text, '“q” – 5€ …', header);
      }
      const c1 = decodeBody(Buffer.from(Array.from({ length: 32 }, (_, i) => 0x80 + i)), 'text/plain; charset=windows-1252').text!;
      assert.equal(c1, '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ');
      assert.equal(decodeBody(Buffer.from('<meta charset="windows-1252"><p>\x93x\x94</p>', 'latin1'), 'text/html').text, '<meta charset="windows-1252"><p>“x”</p>');
    });
  });

  describe('markdown writer guards', () => {
    it('flattens nesting 100 000 levels deep instead of overflowing the stack', () => {
      const depth = 100_000;
      const html = `<html><body>${'<div>'.repeat(depth)}<p>deep text at the bottom of the page, many words long</p>${'</div>'.repeat(depth)}</body></html>`;
      assert.match(htmlToMarkdown(html, 'http://x.test/'), /deep text at the bottom/);
    });
    it('keeps an unclosed-tag soup readable', () => {
      const markdown = htmlToMarkdown('<p>one<p>two<ul><li>a<li>b</ul><table><tr><td>x<td>y</table>', undefined);
      assert.match(markdown, /one\n\ntwo\n\n- a\n- b/);
    });
  });
});
