// A fetch that cannot be answered with a FetchResult, with the status the API reports and a
// message that says what happened and, where the caller can, what to change.
export type FailureStatus = 400 | 402 | 403 | 429 | 502 | 504;

export class FetchFailure extends Error {
  constructor(
    readonly status: FailureStatus,
    message: string,
    /** Extra fields for the error body (e.g. the partial JSON extraction). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'FetchFailure';
  }
}
