// Attack: catastrophic regular expressions from users (issue 8 item 3). A parameter schema's
// `pattern: "^(a+)+$"` at invoke, a fetch schema's pattern against a page heading, and an x-extract
// regex once stalled the API's thread for minutes; they now run on the linear-time engine, and
// patterns it cannot run (backreferences, lookaround) are a clear 400.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestService, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { publish } from '../support/publish.js';
import { startUpstream, type Upstream } from '../fetch/harness.js';
import { compileLinearRegExp, MAX_PROGRAM_SIZE, PatternBudgetError, withPatternBudget } from '../../src/schemas/linear-regexp.js';

const EVIL = '^(a+)+$';
const EVIL_INPUT = 'a'.repeat(5000) + '!'; // native RegExp: 2^5000 steps; 31 characters took 11.9 s
// Backtracking on these inputs would take longer than the universe has existed; linear matching takes
// milliseconds. The bound only has to tell the two apart, so a busy machine must not trip it.
const QUICK_MS = 10_000;

/** Runs `attack` and, while it runs, times a /healthz request; both must finish well within QUICK_MS. */
async function whileHealthz<T>(svc: TestService, attack: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const pending = attack();
  const health = await fetch(svc.url + '/healthz');
  const healthMs = Date.now() - started;
  const result = await pending;
  const attackMs = Date.now() - started;
  assert.equal(health.status, 200);
  assert.ok(healthMs < QUICK_MS, `/healthz took ${healthMs} ms while the pattern ran`);
  assert.ok(attackMs < QUICK_MS, `the request took ${attackMs} ms`);
  return result;
}

function project(name: string, schema: Record<string, unknown>): string {
  return writeProject({ 'index.ts': `import { defineFn } from 'browserfn';\ndefineFn(${JSON.stringify(name)}, async () => 1, { parametersSchema: ${JSON.stringify(schema)} });\n` });
}

describe('attack: catastrophic user regular expressions', function () {
  this.timeout(240_000);
  let svc: TestService;
  let upstream: Upstream;

  before(async () => {
    // The SSRF guard lifted for loopback only, where the test page lives.
    svc = await startTestService({ BROWSERFN_FETCH_ALLOW_CIDRS: '127.0.0.0/8' });
    upstream = await startUpstream((req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<html><head><title>t</title></head><body><h1>${EVIL_INPUT}</h1><p>text</p></body></html>`);
    });
  });
  after(async () => {
    await upstream?.close();
    await svc?.stop();
  });

  describe('at invoke (parameter schemas)', () => {
    let evilId: string;
    let manyId: string;
    before(async () => {
      // Each pattern is within bounds; together they would take seconds on 60 KB: the budget stops them.
      const many = await publish(svc, project('many-patterns', { type: 'object', properties: { s: { type: 'string', allOf: Array.from({ length: 300 }, (_, i) => ({ pattern: `[\\s\\S]{${700 + i}}$` })) } } }));
      assert.equal(many.status, 'COMPLETED', JSON.stringify(many.cause));
      manyId = many.builtFunctions![0].id;
      const evil = await publish(svc, project('evil-pattern', { type: 'object', properties: { s: { type: 'string', pattern: EVIL }, k: { type: 'object', patternProperties: { '^(b+)+$': { type: 'string' } } } } }));
      assert.equal(evil.status, 'COMPLETED', JSON.stringify(evil.cause));
      evilId = evil.builtFunctions![0].id;
    });

    it('a catastrophic pattern answers its 400 at once, and /healthz answers meanwhile', async () => {
      const response = await whileHealthz(svc, () => svc.request('POST', `/v1/functions/${evilId}/invoke`, { params: { s: EVIL_INPUT } }));
      assert.equal(response.status, 400);
      assert.match(response.body.message, /params\.s must match pattern "\^\(a\+\)\+\$"/);
    });

    it("counted repeats expanding past the size cap answer 400 at once, a session proxy's domainPattern too (they held the API's thread 43 s)", async () => {
      const huge = '(\\p{L}|\\p{N}){1,1000}'.repeat(100);
      const proxies = Array.from({ length: 20 }, () => ({ type: 'none', domainPattern: huge }));
      const response = await whileHealthz(svc, () => svc.request('POST', `/v1/functions/${evilId}/invoke`, { params: { s: 'a' }, sessionCreateParams: { proxies } }));
      assert.equal(response.status, 400);
      assert.match(response.body.message, /proxies\.0\.domainPattern is not a usable regular expression: .*counted repeats expand to more than 2000 instructions/);
    });

    it('a catastrophic patternProperties key is matched in linear time too', async () => {
      const response = await whileHealthz(svc, () => svc.request('POST', `/v1/functions/${evilId}/invoke`, { params: { k: { ['b'.repeat(5000) + '!']: 1 } } }));
      assert.equal(response.status, 202, JSON.stringify(response.body)); // the key does not match, so its subschema does not apply
    });

    it('many patterns over long params are stopped by the pattern budget, with a 400', async () => {
      const response = await whileHealthz(svc, () => svc.request('POST', `/v1/functions/${manyId}/invoke`, { params: { s: 'x'.repeat(60_000) } }));
      assert.equal(response.status, 400);
      assert.match(response.body.message, /params are too large for the patterns of the Function's parameter schema/);
      // Short params are checked as usual (300 patterns × 101 characters is within the budget).
      const short = await svc.request('POST', `/v1/functions/${manyId}/invoke`, { params: { s: 'x'.repeat(100) } });
      assert.equal(short.status, 400);
      assert.match(short.body.message, /params\.s must match pattern "\[\\s\\S\]\{700\}\$"/);
    });

    it('valid params still pass the same pattern', async () => {
      const response = await svc.request('POST', `/v1/functions/${evilId}/invoke`, { params: { s: 'aaaa' } });
      assert.equal(response.status, 202, JSON.stringify(response.body));
    });

    it('a parameter schema with a backreference fails the build, naming the Function, the pattern and why', async () => {
      const refused = await publish(svc, project('backreference', { type: 'object', properties: { s: { type: 'string', pattern: '^(a)\\1$' } } }));
      assert.equal(refused.status, 'FAILED');
      assert.equal(refused.cause?.code, 'INVALID_PARAMETERS_SCHEMA');
      assert.match(refused.cause?.message ?? '', /Function "backreference" cannot be checked: pattern "\^\(a\)\\\\1\$" uses a backreference/);
    });
  });

  describe('at fetch (caller schemas and x-extract)', () => {
    const fetchJson = (schema: Record<string, unknown>) => svc.request('POST', '/v1/fetch', { url: upstream.url + '/page', format: 'json', schema });

    it('a catastrophic schema pattern against the page heading finishes at once, and /healthz answers meanwhile', async () => {
      const response = await whileHealthz(svc, () => fetchJson({ type: 'object', properties: { name: { type: 'string', 'x-extract': 'h1', pattern: EVIL } } }));
      assert.equal(response.status, 400, JSON.stringify(response.body).slice(0, 300));
      assert.match(response.body.message, /does not satisfy the schema: \/name must match pattern/);
      assert.equal(response.body.content.name, EVIL_INPUT);
    });

    it('a catastrophic x-extract regex finishes at once', async () => {
      const response = await whileHealthz(svc, () => fetchJson({ type: 'object', properties: { zzz: { type: 'string', 'x-extract': { selector: 'h1', regex: '^((a+)+)$' } } } }));
      assert.equal(response.status, 200, JSON.stringify(response.body).slice(0, 300));
      assert.deepEqual(response.body.content, {}, 'the heading ends with "!": no match, no value');
    });

    const refusals: [string, Record<string, unknown>, RegExp][] = [
      ['a lookahead in pattern', { type: 'object', properties: { a: { type: 'string', pattern: 'a(?=b)' } } }, /schema cannot be used: pattern "a\(\?=b\)" uses a lookahead/],
      ['a lookbehind in a patternProperties key', { type: 'object', patternProperties: { '(?<!x)y': { type: 'string' } } }, /pattern "\(\?<!x\)y" uses a lookbehind/],
      ['a backreference in x-extract', { type: 'object', properties: { a: { type: 'string', 'x-extract': { regex: '(a)\\1' } } } }, /schema\.properties\.a\.x-extract\.regex: pattern "\(a\)\\\\1" uses a backreference/],
      ['a pattern too large to match in bounded time', { type: 'object', properties: { a: { type: 'string', pattern: '[\\s\\S]{1000}'.repeat(3) } } }, /too large to match in bounded time/],
      ['an invalid pattern', { type: 'object', properties: { a: { type: 'string', pattern: '(' } } }, /pattern "\(" is not a valid regular expression/],
    ];
    for (const [what, schema, message] of refusals) {
      it(`refuses ${what} with a 400 before fetching`, async () => {
        const before = upstream.requests.length;
        const response = await fetchJson(schema);
        assert.equal(response.status, 400);
        assert.match(response.body.message, message);
        assert.equal(upstream.requests.length, before, 'nothing was fetched');
      });
    }
  });
});

describe('the linear-time engine', () => {
  it('matches like RegExp (flag u) on simple patterns: search, first match and its position', () => {
    const atom = fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '[a-c]', '\\d', '\\w', '\\W', '\\s', '\\S', '[\\s\\d]', '[^\\S]', '\\.', 'é', '\\u00e9', '\\u{1F600}', '\\p{L}', '\\P{L}', '\\p{Lu}', '[]', '[^]');
    const quantifier = fc.constantFrom('', '', '*', '+', '?', '{2}', '{1,3}', '{0,}', '*?', '+?');
    const piece = fc.oneof(
      fc.tuple(atom, quantifier).map(([a, q]) => a + q),
      fc.constantFrom('^', '$', '\\b', '\\B'),
    );
    const sequence = fc.array(piece, { minLength: 1, maxLength: 5 }).map((ps) => ps.join(''));
    const pattern = fc.oneof(
      sequence,
      fc.tuple(sequence, sequence).map(([x, y]) => `${x}|${y}`),
      fc.tuple(sequence, quantifier, sequence).map(([x, q, y]) => `(${x})${q}${y}`),
      fc.tuple(sequence, quantifier).map(([x, q]) => `(?:${x})${q}`),
    );
    const input = fc.array(fc.constantFrom('a', 'b', 'c', 'A', '1', ' ', '\n', '\u2028', '\u00a0', 'é', '😀', '.', '_'), { maxLength: 12 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(pattern, input, (p, s) => {
        const native = new RegExp(p, 'u');
        const linear = compileLinearRegExp(p);
        const n = native.exec(s);
        // V8 may find an empty match inside a surrogate pair, where `u` mode never looks ("a😀a" has a \B there); RE2 does not.
        if (n !== null && n.index > 0 && s.codePointAt(n.index - 1)! > 0xffff) return;
        assert.equal(linear.test(s), native.test(s), `test: /${p}/u on ${JSON.stringify(s)}`);
        // Which text matches can differ where ECMAScript ends a loop on an empty lazy iteration
        // (/(?:a*?){1,3}/ takes "a", RE2 ""); ajv only asks whether a pattern matches.
        if (/[*+?}]\?/.test(p)) return;
        const l = linear.exec(s) as (string | null)[] & { index?: number };
        assert.equal(l?.[0], n?.[0], `match: /${p}/u on ${JSON.stringify(s)}`);
        if (n) assert.equal(l.index, n.index, `index: /${p}/u on ${JSON.stringify(s)}`);
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses what it cannot run in linear time, and says which construct', () => {
    const cases: [string, RegExp][] = [
      ['(a)\\1', /backreference/],
      ['(?<x>a)\\k<x>', /backreference/],
      ['a(?!b)', /lookahead/],
      ['(?<=a)b', /lookbehind/],
      ['a{1001}', /counts up to 1000/],
      ['\\p{Emoji}', /Unicode property/],
      ['[\\s\\S]{1000}'.repeat(3), new RegExp(`at most ${MAX_PROGRAM_SIZE}`)],
      // Refused before RE2 expands them: 100 of these took it 43 s.
      ['(a{1000}){1000}', /counted repeats expand to more than/],
      ['(\\p{L}|\\p{N}){1,1000}'.repeat(100), /counted repeats expand to more than/],
    ];
    for (const [p, reason] of cases) assert.throws(() => compileLinearRegExp(p), reason, p);
  });

  it('bounds the total work of the matches inside withPatternBudget', () => {
    const big = compileLinearRegExp('[\\s\\S]{900}$');
    const input = 'x'.repeat(10_000);
    assert.throws(() => withPatternBudget(50_000_000, () => { for (let i = 0; i < 10; i++) big.test(input); }), PatternBudgetError);
    assert.equal(withPatternBudget(50_000_000, () => big.test(input)), true);
    assert.equal(big.test(input), true, 'outside a budget nothing is counted');
  });

  it('matches a 1 MB input against the classic catastrophic patterns quickly', () => {
    const input = 'a'.repeat(1 << 20) + '!';
    for (const p of ['^(a+)+$', '^(a|a?)+$', '^(a|aa)+$', '(\\w+\\s?)*$']) {
      const started = Date.now();
      assert.equal(compileLinearRegExp(p).test(input), new RegExp(p, 'u').test('!'), p);
      assert.ok(Date.now() - started < QUICK_MS, `${p} took ${Date.now() - started} ms`);
    }
  });
});
