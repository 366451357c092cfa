// Callers' JSON Schemas (format json) compiled once for both uses: the request thread compiles a
// schema to refuse a bad one with a 400 before fetching; the conversion worker validates the
// extracted content against it, inside the worker's time limit. Patterns run on the linear-time engine.
import { Ajv, type ValidateFunction } from 'ajv';
import { addFormats } from '../schemas/ajv-formats.js';
import { linearRegExpAjvOptions } from '../schemas/linear-regexp.js';
import { schemaTooComplex } from '../schemas/schema-size.js';

/** No coercion, every error; the schema is checked against its meta-schema. */
// inlineRefs off: a definition used in many places is compiled once, not copied into each (which made a
// 90 KB schema take minutes and the heap).
// logger: false: ajv prints what a schema says (an unknown format's name, newlines included) to the
// server's output, where a caller could forge log lines.
const schemaAjv = new Ajv({ allErrors: true, strict: false, logger: false, validateSchema: true, addUsedSchema: false, loadSchema: undefined, inlineRefs: false, ...linearRegExpAjvOptions });
addFormats(schemaAjv);

const validators = new Map<string, ValidateFunction>();
const MAX_CACHED_SCHEMAS = 200;

/** Throws ajv's error, an UnsupportedPatternError for a pattern the linear-time engine refuses, or a SchemaTooComplexError. */
export function compileCallerSchema(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = validators.get(key);
  if (cached) return cached;
  const tooComplex = schemaTooComplex(schema);
  if (tooComplex) throw tooComplex;
  const validate = schemaAjv.compile(schema);
  if (validators.size >= MAX_CACHED_SCHEMAS) validators.delete(validators.keys().next().value!);
  validators.set(key, validate);
  return validate;
}
