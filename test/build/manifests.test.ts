// What the build makes of discovered Function manifests: patterns in a parameter schema that the
// linear-time engine cannot check fail the build, naming the Function and the pattern.
import assert from 'node:assert/strict';
import { builtFunctionsOf } from '../../src/build/manifests.js';
import { BuildFailure } from '../../src/build/build-failure.js';

const manifest = (parametersSchema: Record<string, unknown>) => [{ file: 'lookup.json', content: { name: 'lookup', config: { parametersSchema } } }];

describe('build manifests', () => {
  it('keeps a parameter schema whose patterns run in linear time', () => {
    const schema = { type: 'object', properties: { sku: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' } } };
    const [fn] = builtFunctionsOf(manifest(schema), 'index.ts');
    assert.deepEqual(fn.parametersSchema, schema);
  });

  for (const [what, pattern] of [
    ['a backreference', '^(a)\\1$'],
    ['a lookahead', '^(?=a)a$'],
  ]) {
    it(`fails the build on ${what} in a parameter schema, naming the Function`, () => {
      assert.throws(
        () => builtFunctionsOf(manifest({ type: 'object', properties: { q: { type: 'string', pattern } } }), 'index.ts'),
        (err: unknown) => err instanceof BuildFailure && err.code === 'INVALID_PARAMETERS_SCHEMA' && /Function "lookup"/.test(err.message) && err.message.includes(JSON.stringify(pattern)),
      );
    });
  }
});
