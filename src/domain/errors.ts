// Errors a use case raises when a request cannot be served, with a kind that says why. The use
// cases do not know HTTP: the façade maps each kind to a status once (src/api/http-error.ts), and
// the CLI or a controller can decide on the kind without knowing what the wire says.

/** Why a use case refused: only the kinds in use. */
export type DomainErrorKind =
  /** The caller's input is wrong (including a field over its size limit); the message says what to fix. */
  | 'invalid'
  /** The named object does not exist in the project (another project's objects count as missing). */
  | 'not-found'
  /** The request clashes with the current state (a name taken, nothing published yet). */
  | 'conflict'
  /** The project has too much waiting already; the same request may succeed later. */
  | 'busy';

/** An error whose message is safe to show the caller. */
export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** For 'busy': when trying again makes sense. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (message: string): DomainError => new DomainError('invalid', message);
export const notFound = (message: string): DomainError => new DomainError('not-found', message);
export const conflict = (message: string): DomainError => new DomainError('conflict', message);
export const busy = (message: string, retryAfterSeconds: number): DomainError => new DomainError('busy', message, retryAfterSeconds);

export const isDomainError = (err: unknown, kind: DomainErrorKind): err is DomainError => err instanceof DomainError && err.kind === kind;
