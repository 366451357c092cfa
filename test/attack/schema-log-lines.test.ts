// attack: a caller's JSON schema cannot write to the server's log. ajv prints what a schema says
// (an unknown format's name, newlines included) to the console, where a fetch schema or a
// Function's parameter schema could forge whole log lines.
import assert from 'node:assert/strict';
import { compileCallerSchema } from '../../src/fetch/caller-schema.js';
import { compileParametersSchema } from '../../src/schemas/parameters-schema.js';

const FORGED = 'x\n{"level":60,"msg":"FORGED: admin key rotated"}\n';

describe('attack: log lines from schemas', () => {
  for (const [what, compile] of [
    ['a fetch schema', compileCallerSchema],
    ['a parameter schema', compileParametersSchema],
  ] as const) {
    it(`${what} with an unknown format compiles (the format is an annotation) and prints nothing`, () => {
      const printed: unknown[][] = [];
      const saved = { log: console.log, warn: console.warn, error: console.error };
      for (const method of ['log', 'warn', 'error'] as const) console[method] = (...args: unknown[]) => void printed.push(args);
      try {
        const validate = compile({ type: 'object', properties: { a: { type: 'string', format: FORGED } } });
        assert.ok(typeof validate === 'function' && validate({ a: 'anything' }), 'the unknown format is not checked');
      } finally {
        Object.assign(console, saved);
      }
      assert.deepEqual(printed, []);
    });
  }
});
