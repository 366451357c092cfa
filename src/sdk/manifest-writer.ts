// Introspection output: one JSON file per Function, the same layout @browserbasehq/sdk-functions writes,
// so one build step discovers Functions from either SDK.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FunctionDefinition } from './types.js';

export const MANIFEST_DIR = join('.browserbase', 'functions', 'manifests');

export interface FunctionManifest {
  name: string;
  config: { sessionConfig?: unknown; parametersSchema?: unknown };
}

export function manifestOf(definition: FunctionDefinition): FunctionManifest {
  const config: FunctionManifest['config'] = {};
  if (definition.options.sessionConfig !== undefined) config.sessionConfig = definition.options.sessionConfig;
  if (definition.options.parametersSchema !== undefined) config.parametersSchema = definition.options.parametersSchema;
  return { name: definition.name, config };
}

/** Writes `<cwd>/.browserbase/functions/manifests/<name>.json`; `clearFirst` drops manifests of earlier runs. */
export function writeManifest(cwd: string, definition: FunctionDefinition, clearFirst: boolean): void {
  const dir = join(cwd, MANIFEST_DIR);
  if (clearFirst) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${definition.name}.json`), JSON.stringify(manifestOf(definition), null, 2));
}
