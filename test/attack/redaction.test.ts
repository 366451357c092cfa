// Attack: a Function gets a secret value out through its logs, session logs, failure messages or
// results by encoding it (base64 in an Authorization Basic header, form-encoding in a query string,
// JSON escaping, percent-encoding) or by having truncation cut it. Unit tests of every form, then
// one run on the real `serve` stack (build pod, browser pod, Chromium) where the stored logs,
// session logs and outcome hold no form of the value.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createRedactor, MIN_DERIVED_BYTES, MIN_SECRET_CHARS, REDACTED, redactDeep } from '../../src/runtime/pod-agent/secret-redaction.js';
import { Kinds } from '../../src/cluster/objects.js';
import { startTestService, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';
import { sealCompat } from '../secrets/harness.js';

/** Characters that every encoding treats differently: quote, slash, plus, space, ampersand, equals, non-ASCII. */
const tricky = (): string => `t0k"en/+va lue&x=é-${randomBytes(9).toString('hex')}`;

/** Every spelling of `value` an attacker might log. */
function encodings(value: string): Record<string, string> {
  const bytes = Buffer.from(value);
  return {
    raw: value,
    json: JSON.stringify(value).slice(1, -1),
    jsonTwice: JSON.stringify(JSON.stringify(value)).slice(1, -1),
    jsonAsciiOnly: JSON.stringify(value).slice(1, -1).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(/\//g, '\\/'),
    percent: encodeURIComponent(value),
    percentLowerHex: encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
    percentEveryByte: [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
    encodeUri: encodeURI(value),
    form: new URLSearchParams({ q: value }).toString().slice(2),
    base64: bytes.toString('base64'),
    base64NoPadding: bytes.toString('base64').replace(/=+$/, ''),
    base64url: bytes.toString('base64url'),
    basicAuth: `Basic ${Buffer.from(`user:${value}`).toString('base64')}`,
    base64Offset1: Buffer.from(`x${value}yz`).toString('base64'),
    base64urlOffset2: Buffer.from(`xy${value}z`).toString('base64url'),
    base64InUrl: encodeURIComponent(Buffer.from(`user:${value}`).toString('base64')),
  };
}

/**
 * 12 characters taken from the middle of each encoding: whatever is left of a value after
 * redaction must not contain any of them (a redaction that leaves the edges of the encoding
 * standing is fine; one that leaves the value's bytes is not).
 */
function leakProbes(value: string): string[] {
  return Object.values(encodings(value)).map((encoded) => encoded.slice(Math.floor(encoded.length / 2) - 6, Math.floor(encoded.length / 2) + 6));
}

function assertNoForm(text: string, value: string, where: string): void {
  for (const [name, encoded] of Object.entries(encodings(value))) assert.ok(!text.includes(encoded), `${where}: the ${name} form is there`);
  for (const probe of leakProbes(value)) assert.ok(!text.includes(probe), `${where}: a part of an encoded value ("${probe}") is there`);
}

describe('attack: secret values reach logs in encoded or cut forms', function () {
  describe('the redactor', () => {
    const value = tricky();
    const redact = createRedactor({ API_TOKEN: value });

    for (const [name, encoded] of Object.entries(encodings(value))) {
      it(`redacts the ${name} form inside other text`, () => {
        const out = redact(`before ${encoded} after`);
        assert.ok(out.includes(REDACTED), out);
        assert.ok(out.startsWith('before ') && out.endsWith(' after'), `the text around it stays: ${out}`);
        for (const probe of leakProbes(value)) assert.ok(!out.includes(probe), `${out} still holds ${probe}`);
      });
    }

    it('redacts an Authorization Basic header and a form-encoded query string the way CDP records them', () => {
      const event = {
        request: {
          url: `http://127.0.0.1:1/page?${new URLSearchParams({ q: value, other: 'plain' })}`,
          headers: { Authorization: `Basic ${Buffer.from(`alice:${value}`).toString('base64')}` },
          postData: JSON.stringify({ password: value }),
        },
      };
      const out = JSON.stringify(redactDeep(event, redact));
      assertNoForm(out, value, 'redacted event');
      assert.ok(out.includes('other=plain'), 'what is not secret stays readable');
    });

    it('redacts a value cut by truncation: its prefix before a cut marker or at the end, its suffix at the start', () => {
      const cutAfter = (n: number) => `log line ${value.slice(0, n)}… [truncated 4000 characters]`;
      for (const n of [MIN_DERIVED_BYTES, 12, value.length - 1]) {
        const out = redact(cutAfter(n));
        assert.equal(out, `log line ${REDACTED}… [truncated 4000 characters]`, `a ${n}-character prefix`);
      }
      assert.equal(redact(`preview ${JSON.stringify({ token: value }).slice(0, 20)}`), `preview {"token":"${REDACTED}`, 'a JSON preview cut inside the value');
      assert.equal(redact(`${value.slice(-10)} and the rest of the line`), `${REDACTED} and the rest of the line`, 'a suffix where the text begins');
      const base64 = Buffer.from(value).toString('base64');
      assert.equal(redact(`${base64.slice(0, 16)}…`), `${REDACTED}…`, 'a cut base64 form');
    });

    it('leaves short common strings alone: values under the minimum, and parts of values away from a cut', () => {
      const short = createRedactor({ PIN: 'abc' });
      assert.equal(short('abc is not redacted: values shorter than the minimum are too common'), 'abc is not redacted: values shorter than the minimum are too common');
      assert.ok(MIN_SECRET_CHARS <= 4);
      assert.equal(createRedactor({ PIN: 'abcd' })('the abcd value'), `the ${REDACTED} value`);
      // The first characters of a value in the middle of a text that was not cut are not a leak of the value.
      assert.equal(redact(`a ${value.slice(0, 8)} b`), `a ${value.slice(0, 8)} b`);
      // Fewer than MIN_DERIVED_BYTES characters at a cut edge are kept.
      assert.equal(redact(`x ${value.slice(0, MIN_DERIVED_BYTES - 1)}…`), `x ${value.slice(0, MIN_DERIVED_BYTES - 1)}…`);
    });

    it('redacts keys and every string of nested results, and several values at once', () => {
      const other = `second-${randomBytes(6).toString('hex')}`;
      const both = createRedactor({ A: value, B: other });
      const out = redactDeep({ [value]: [other, { deep: `x${Buffer.from(other).toString('base64')}` }], n: 1 }, both);
      const text = JSON.stringify(out);
      assertNoForm(text, value, 'results');
      assertNoForm(text, other, 'results');
      assert.equal((out as { n: number }).n, 1);
    });
  });

  describe('end to end on the serve stack', function () {
    this.timeout(300_000);
    let svc: TestService;
    let page: Server;
    let pageUrl: string;
    const seenHeaders: IncomingHttpHeaders[] = [];

    const HANDLER = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';

defineFn('leaker', async (ctx, params: { url: string; fail?: boolean }) => {
  const token = ctx.secrets.API_TOKEN;
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  const context = browser.contexts()[0];
  const page = context.pages()[0] ?? (await context.newPage());
  await page.setExtraHTTPHeaders({ Authorization: 'Basic ' + Buffer.from('user:' + token).toString('base64') });
  await page.goto(params.url + '?' + new URLSearchParams({ q: token, note: 'two words' }));
  await page.evaluate((t) => console.log('in page', btoa(unescape(encodeURIComponent(t)))), token);
  console.log('base64', Buffer.from(token).toString('base64'));
  console.log('base64url', Buffer.from(token).toString('base64url'));
  console.log('json', JSON.stringify({ token }));
  console.log('cut', 'x'.repeat(64 * 1024 - 12) + token);
  if (params.fail) throw new Error('could not log in with ' + encodeURIComponent(token));
  return { echoed: token, basic: Buffer.from('user:' + token).toString('base64') };
});
`;

    before(async () => {
      page = createServer((request, response) => {
        seenHeaders.push(request.headers);
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<!doctype html><title>login</title><p>ok</p>');
      });
      page.listen(0, '127.0.0.1');
      await once(page, 'listening');
      pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/login`;
      svc = await startTestService();
    });
    after(async () => {
      await svc?.stop();
      page?.closeAllConnections();
      page?.close();
    });

    it('keeps every form of an attached secret out of stored logs, session logs, failure messages and results', async () => {
      const value = tricky();
      const build = await publish(svc, writeProject({ 'index.ts': HANDLER }));
      assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
      const fnId = build.builtFunctions!.find((f) => f.name === 'leaker')!.id;
      const keypair = (await svc.request('GET', '/v1/secrets/keypair')).body;
      const secret = (await svc.request('POST', '/v1/secrets', { secretKey: 'API_TOKEN', sealedSecretValue: await sealCompat(keypair.publicKey, value) })).body;
      assert.equal((await svc.request('POST', `/v1/functions/${fnId}/secrets`, { secretId: secret.id })).status, 204);

      const ok = await invokeAndWait(svc, fnId, { params: { url: pageUrl } });
      assert.equal(ok.status, 'COMPLETED', JSON.stringify(ok.cause));
      const failed = await invokeAndWait(svc, fnId, { params: { url: pageUrl, fail: true } });
      assert.equal(failed.status, 'FAILED');
      assert.equal(failed.cause?.code, 'WORKLOAD_ERROR');
      assert.match(failed.cause?.message ?? '', /could not log in with \[REDACTED\]/);

      // The page really got the secret: the handler used it, only the records are redacted.
      assert.ok(seenHeaders.some((h) => h.authorization === `Basic ${Buffer.from(`user:${value}`).toString('base64')}`));

      const stored: string[] = [];
      for (const inv of [ok, failed]) {
        const logs = (await svc.request('GET', `/v1/functions/invocations/${inv.id}/logs`)).body;
        const session = (await svc.request('GET', `/v1/sessions/${inv.sessionId}/logs`)).body;
        const outcome = (await svc.request('GET', `/v1/functions/invocations/${inv.id}`)).body;
        const texts = { logs: JSON.stringify(logs), sessionLogs: JSON.stringify(session), outcome: JSON.stringify(outcome) };
        for (const [where, text] of Object.entries(texts)) assertNoForm(text, value, `${where} of ${inv.status}`);
        stored.push(...Object.values(texts));
      }
      const okLogs = stored[0];
      for (const line of ['base64 [REDACTED]', 'base64url [REDACTED]', 'cut xxxxxxxx']) assert.ok(okLogs.includes(line), `${line} is logged (redacted)`);
      assert.ok(okLogs.includes(`x${REDACTED}… [truncated`), 'the line cut inside the value ends redacted');
      assert.ok(!okLogs.includes(`x${JSON.stringify(value.slice(0, MIN_DERIVED_BYTES)).slice(1, -1)}`), 'no prefix of the value before the cut');
      assert.ok(stored[1].includes('Authorization') && stored[1].includes('two+words'), 'the session log recorded the request, header and query');
      assert.deepEqual(ok.results, { echoed: REDACTED, basic: (ok.results as { basic: string }).basic });
      assert.ok((ok.results as { basic: string }).basic.includes(REDACTED));

      // And what the store keeps (outcome ConfigMaps, Invocation objects) holds none of it either.
      const configMaps = JSON.stringify(await svc.service.cluster.resource(Kinds.ConfigMap).list('default'));
      const invocations = JSON.stringify(await svc.service.cluster.resource(Kinds.Invocation).list('default'));
      assertNoForm(configMaps, value, 'stored ConfigMaps');
      assertNoForm(invocations, value, 'stored Invocations');
    });
  });
});
