// How long a build pod and a browser pod may run. The controllers enforce these deadlines and the
// façade reports them as `expiresAt`, so they live below both.

/** A build that has not reported by then is failed as TIMED_OUT. */
export const BUILD_TIMEOUT_MS = 15 * 60 * 1000;

/** Extra time past the handler timeout for browser start-up and reporting. */
export const POD_GRACE_SECONDS = 60;

/** How long a browser pod may take to store its session's recording. */
export const RECORDING_UPLOAD_BUDGET_MS = 60_000;

/**
 * How long a browser pod that reported its outcome may go on closing its session (stopping the
 * recorder, storing the recording, reporting the session's records) before it is deleted all the same.
 */
export const SESSION_CLOSE_GRACE_MS = RECORDING_UPLOAD_BUDGET_MS + 30_000;

/** How long a read of an ended invocation's session (its CDP events, metrics, recording) waits for the session to close. */
export const SESSION_RECORDS_WAIT_MS = 20_000;
