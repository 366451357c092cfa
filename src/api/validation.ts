import { Ajv, type ValidateFunction } from 'ajv';
import { addFormats } from '../schemas/ajv-formats.js';
import type { JsonSchema } from './route.js';
import { linearRegExpAjvOptions } from '../schemas/linear-regexp.js';

/** One ajv instance for request validation: coerces query strings, collects every error; patterns in linear time; numbers finite (JSON.parse makes 1e999 Infinity). */
export const requestAjv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false, strictNumbers: true, ...linearRegExpAjvOptions });
addFormats(requestAjv);

const cache = new WeakMap<object, ValidateFunction>();

export function compileSchema(schema: JsonSchema): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = requestAjv.compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}
