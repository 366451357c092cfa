// attack: a user's JSON Schema built to make compiling it explode. A definition referenced from
// thousands of places once made ajv copy it into each (a 90 KB fetch schema blocked the API for
// minutes, then ran it out of heap); definitions are now compiled once, and schemas with more
// subschemas than any real one are refused before compiling, for fetch and for parameter schemas.
// So are schemas with longer lists (enum values) than any real one.
import assert from 'node:assert/strict';
import { startFetchApi, startUpstream, type FetchApi, type Upstream } from '../fetch/harness.js';
import { MAX_SCHEMA_LIST_ITEMS, MAX_SCHEMA_NODES } from '../../src/schemas/schema-size.js';
import { compileParametersSchema } from '../../src/schemas/parameters-schema.js';
import { builtFunctionsOf } from '../../src/build/manifests.js';
import { BuildFailure } from '../../src/build/build-failure.js';

/** One definition of `width` string properties (each with a pattern), referenced by `uses` properties. */
function refHeavySchema(uses: number, width = 60): Record<string, unknown> {
  const definition = { type: 'object', properties: Object.fromEntries(Array.from({ length: width }, (_, i) => [`p${i}`, { type: 'string', pattern: `^a${i}$`, minLength: 1 }])) };
  return { type: 'object', $defs: { d: definition }, properties: Object.fromEntries(Array.from({ length: uses }, (_, i) => [`k${i}`, { $ref: '#/$defs/d' }])) };
}

describe('attack: JSON Schemas that explode when compiled', function () {
  this.timeout(60_000);
  let api: FetchApi;
  let upstream: Upstream;

  before(async () => {
    api = await startFetchApi();
    upstream = await startUpstream((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><h1>t</h1></body></html>'));
  });
  after(async () => {
    await upstream?.close();
    await api?.close();
  });

  it('refuses a fetch schema with more subschemas than the limit with a 400 before fetching', async () => {
    const { status, body } = await api.post({ url: `${upstream.url}/`, format: 'json', schema: refHeavySchema(3000) });
    assert.equal(status, 400);
    assert.match(body.message, new RegExp(`schema cannot be used: it holds more than ${MAX_SCHEMA_NODES} subschemas`));
    assert.equal(upstream.requests.length, 0, 'nothing was fetched');
  });

  it('refuses a schema whose lists hold more values than the limit, before checking it against the meta-schema', async () => {
    // Checking an enum against the meta-schema compares its values pairwise: 148,000 held the API for 13 s.
    const longEnum = (values: number) => ({ type: 'object', properties: { a: { enum: Array.from({ length: values }, (_, i) => i) } } });
    const { status, body } = await api.post({ url: `${upstream.url}/`, format: 'json', schema: longEnum(100_000) });
    assert.equal(status, 400);
    assert.match(body.message, new RegExp(`schema cannot be used: its lists \\(enum, required, …\\) hold more than ${MAX_SCHEMA_LIST_ITEMS} values in all`));
    assert.equal(upstream.requests.length, 0, 'nothing was fetched');
    assert.match(String(compileParametersSchema(longEnum(MAX_SCHEMA_LIST_ITEMS + 1))), /hold more than 5000 values/);
    assert.equal(typeof compileParametersSchema(longEnum(MAX_SCHEMA_LIST_ITEMS)), 'function', 'a list at the limit is compiled');
  });

  it('compiles a definition referenced from many places once: such a schema within the limit is served', async () => {
    const { status, body } = await api.post({ url: `${upstream.url}/`, format: 'json', schema: refHeavySchema(900) });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
  });

  it('refuses such a parameter schema at build and at invoke, naming the limit', () => {
    const schema = refHeavySchema(3000);
    const compiled = compileParametersSchema(schema);
    assert.ok(compiled instanceof Error);
    assert.match(compiled.message, /more than 1000 subschemas/);
    assert.throws(
      () => builtFunctionsOf([{ file: 'f.json', content: { name: 'f', config: { parametersSchema: schema } } }], 'index.ts'),
      (err: unknown) => err instanceof BuildFailure && err.code === 'INVALID_PARAMETERS_SCHEMA' && /more than 1000 subschemas/.test(err.message),
    );
    assert.equal(typeof compileParametersSchema(refHeavySchema(900)), 'function');
  });
});
