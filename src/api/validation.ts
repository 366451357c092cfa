import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import * as addFormatsModule from 'ajv-formats';
import type { JsonSchema } from './route.js';
import { linearRegExpAjvOptions } from '../schemas/linear-regexp.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule.default as unknown as (ajv: Ajv) => Ajv;

/** One ajv instance for request validation: coerces query strings, collects every error; patterns in linear time. */
export const requestAjv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false, ...linearRegExpAjvOptions });
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

const FORMAT_NAMES: Record<string, string> = {
  uuid: 'a UUID such as 123e4567-e89b-12d3-a456-426614174000',
  'date-time': 'an RFC 3339 date-time such as 2026-01-31T12:00:00Z',
  uri: 'an absolute URI',
};

/** Turns ajv errors into one sentence a caller can act on: `body.timeout must be >= 60`. */
export function describeErrors(where: string, errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => {
      const path = (where + e.instancePath.replace(/\//g, '.')).replace(/^\./, '');
      if (e.keyword === 'additionalProperties') return `${path} has unknown property "${(e.params as { additionalProperty: string }).additionalProperty}"`;
      if (e.keyword === 'format') return `${path || 'value'} must be ${FORMAT_NAMES[(e.params as { format: string }).format] ?? `in format ${(e.params as { format: string }).format}`}`;
      if (e.keyword === 'required') return `${path ? path + '.' : ''}${(e.params as { missingProperty: string }).missingProperty} is required`;
      return `${path || 'value'} ${e.message ?? 'is invalid'}`;
    })
    .join('; ');
}
