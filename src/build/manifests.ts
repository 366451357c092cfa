// Checks discovered manifests and turns them into the build's Function list.
import { validateSessionConfig } from '../schemas/session-config.js';
import { functionNameProblem } from '../sdk/function-name.js';
import { BuildFailure } from './build-failure.js';
import { compileParametersSchema } from '../schemas/parameters-schema.js';
import type { BuiltFunctionReport } from '../schemas/reports.js';
import type { RawManifest } from './introspect.js';

export function builtFunctionsOf(manifests: RawManifest[], entrypoint: string): BuiltFunctionReport[] {
  if (manifests.length === 0) {
    throw new BuildFailure(
      'NO_MANIFESTS_FOUND',
      `No Functions found: neither ${entrypoint} nor the files it imports call defineFn. Define Functions with defineFn and import every file that does from the entry file.`,
    );
  }
  const seen = new Set<string>();
  const functions = manifests.map((manifest) => toBuiltFunction(manifest));
  for (const fn of functions) {
    if (seen.has(fn.name)) throw new BuildFailure('DUPLICATE_FUNCTION_NAME', `defineFn was called more than once with the name "${fn.name}"; every Function needs a unique name`);
    seen.add(fn.name);
  }
  return functions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function toBuiltFunction({ file, content }: RawManifest): BuiltFunctionReport {
  if (!isRecord(content) || !isRecord(content.config ?? {})) {
    throw new BuildFailure('INTROSPECTION_FAILED', `The manifest ${file} is not {name, config}`);
  }
  const name = content.name;
  const problem = functionNameProblem(name);
  if (problem) throw new BuildFailure('INVALID_FUNCTION_NAME', `The function name ${JSON.stringify(name)} ${problem}`);
  const config = (content.config ?? {}) as Record<string, unknown>;
  const built: BuiltFunctionReport = { name: name as string };
  if (config.sessionConfig !== undefined) {
    const errors = validateSessionConfig(config.sessionConfig);
    if (errors.length > 0) {
      throw new BuildFailure(
        'INVALID_SESSION_CREATE_PARAMS',
        `The sessionConfig of Function "${name as string}" is invalid: ${errors.join('; ')}. Fix the sessionConfig passed to defineFn.`,
      );
    }
    built.sessionConfig = config.sessionConfig as Record<string, unknown>;
  }
  if (config.parametersSchema !== undefined) {
    if (!isRecord(config.parametersSchema)) {
      throw new BuildFailure('INTROSPECTION_FAILED', `The parametersSchema of Function "${name as string}" must be a JSON Schema object`);
    }
    const compiled = compileParametersSchema(config.parametersSchema);
    if (compiled instanceof Error) {
      throw new BuildFailure('INVALID_PARAMETERS_SCHEMA', `The parametersSchema of Function "${name as string}" cannot be checked: ${compiled.message}`);
    }
    built.parametersSchema = config.parametersSchema;
  }
  return built;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
