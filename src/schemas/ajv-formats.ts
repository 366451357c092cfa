// ajv-formats (the `format` keyword's checks) for every ajv instance of the project. The package is
// CommonJS; under ESM its default export arrives wrapped, hence the one unwrapping here.
import type { Ajv } from 'ajv';
import * as addFormatsModule from 'ajv-formats';

export const addFormats = addFormatsModule.default as unknown as (ajv: Ajv) => Ajv;
