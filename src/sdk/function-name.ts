// Function names become manifest file names and API lookups, so they must be usable as both.
export const MAX_FUNCTION_NAME_LENGTH = 128;

/** Why `name` cannot be a Function name, or undefined when it can. */
export function functionNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return `must be a string, got ${name === null ? 'null' : typeof name}`;
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_FUNCTION_NAME_LENGTH) return `must be at most ${MAX_FUNCTION_NAME_LENGTH} characters, got ${name.length}`;
  if (name.trim() !== name) return 'must not start or end with whitespace';
  if (name === '.' || name === '..') return 'must not be "." or ".."';
  // eslint-disable-next-line no-control-regex
  if (/[/\\\u0000-\u001f\u007f]/.test(name)) return 'must not contain "/", "\\" or control characters';
  return undefined;
}

/** Thrown by defineFn for an unusable name; the build reports it as INVALID_FUNCTION_NAME. */
export class InvalidFunctionNameError extends TypeError {
  override readonly name = 'InvalidFunctionNameError';
  readonly code = 'INVALID_FUNCTION_NAME';
}

export function assertFunctionName(name: unknown): asserts name is string {
  const problem = functionNameProblem(name);
  if (problem) throw new InvalidFunctionNameError(`defineFn: the function name ${JSON.stringify(name)} ${problem}`);
}
