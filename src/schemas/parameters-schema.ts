// A Function's parameter schema (defineFn's parametersSchema), compiled the one way both the build
// (which refuses patterns it could never check) and invoke (which checks params) need.
import { Ajv, type ValidateFunction } from 'ajv';
import { linearRegExpAjvOptions, UnsupportedPatternError } from './linear-regexp.js';
import { SchemaTooComplexError, schemaTooComplex } from './schema-size.js';

// The schema's patterns run on the linear-time engine.
// inlineRefs off: a definition used in many places is compiled once, not copied into each.
// logger: false: ajv prints what a schema says (an unknown format's name) to the server's output.
const parametersAjv = new Ajv({ allErrors: true, strict: false, logger: false, inlineRefs: false, ...linearRegExpAjvOptions });

/** Why a parameter schema cannot be used to check params: a pattern the linear-time engine refuses, or its size. */
export type UncheckableSchema = UnsupportedPatternError | SchemaTooComplexError;

/**
 * The compiled schema; the reason it cannot check params; or null when ajv cannot compile it
 * otherwise (such schemas do not block invocations).
 */
export function compileParametersSchema(schema: Record<string, unknown>): ValidateFunction | UncheckableSchema | null {
  const tooComplex = schemaTooComplex(schema);
  if (tooComplex) return tooComplex;
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
