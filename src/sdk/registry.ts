import type { FunctionDefinition } from './types.js';

/** Thrown when one process defines two Functions with the same name; the build reports it as DUPLICATE_FUNCTION_NAME. */
export class DuplicateFunctionNameError extends Error {
  override readonly name = 'DuplicateFunctionNameError';
  readonly code = 'DUPLICATE_FUNCTION_NAME';

  constructor(readonly functionName: string) {
    super(`defineFn: a Function named "${functionName}" is already defined; each Function needs a unique name`);
  }
}

/** The Functions defined in this process, by name. */
export class FunctionRegistry {
  readonly #byName = new Map<string, FunctionDefinition>();

  register(definition: FunctionDefinition): void {
    if (this.#byName.has(definition.name)) throw new DuplicateFunctionNameError(definition.name);
    this.#byName.set(definition.name, definition);
  }

  get(name: string): FunctionDefinition | undefined {
    return this.#byName.get(name);
  }

  get size(): number {
    return this.#byName.size;
  }
}
