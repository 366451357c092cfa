// A Function's parameter schema (defineFn's parametersSchema), compiled the one way both the build
// (which refuses patterns it could never check) and invoke (which checks params) need.
import { Ajv, type ValidateFunction } from 'ajv';
import { linearRegExpAjvOptions, UnsupportedPatternError } from './linear-regexp.js';

// The schema's patterns run on the linear-time engine.
const parametersAjv = new Ajv({ allErrors: true, strict: false, ...linearRegExpAjvOptions });

/**
 * The compiled schema; an UnsupportedPatternError when one of its patterns is refused by the
 * linear-time engine; null when ajv cannot compile it otherwise (such schemas do not block invocations).
 */
export function compileParametersSchema(schema: Record<string, unknown>): ValidateFunction | UnsupportedPatternError | null {
  try {
    return parametersAjv.compile(withoutMetaSchema(schema));
  } catch (err) {
    return err instanceof UnsupportedPatternError ? err : null;
  }
}

/** zod's JSON Schema output names draft 2020-12, which this ajv instance does not load. */
function withoutMetaSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}
